#!/bin/bash
# Batch mode as in gdb: -x files stop at their first error with FILE:LINE:,
# -ex commands all run and the exit status follows the last one, comments,
# empty lines, the "--" form, help, abbreviations, init files and usage.
. "$top_srcdir/tests/test-subr.sh"

cd "$testdir"

# An error on line 2 of a -x file stops the file.
printf 'echo one\\n\nfrobnicate\necho three\\n\n' >cmds.sg
sg -x cmds.sg
is "$OUT" "one" "the -x file stops at its failing line"
is "$ERR" 'cmds.sg:2: Undefined command: "frobnicate".  Try "help".' "the error names FILE:LINE"
is "$STATUS" 1 "a failing -x file exits 1"

# Comments and empty lines: an empty line does not repeat the last command.
printf '# a comment\necho a\\n\n\n   \n  # indented comment\necho b\\n\n' >comments.sg
sg -x comments.sg
is "$OUT" $'a\nb' "comments are skipped, empty lines do not repeat"
is "$STATUS" 0 "a clean -x file exits 0"

# -ex: later commands still run; the status follows the last command.
sg -ex 'frobnicate' -ex 'echo after\n'
is "$OUT" "after" "a failing -ex does not stop the later ones"
is "$ERR" 'Undefined command: "frobnicate".  Try "help".' "unknown command message"
is "$STATUS" 0 "status follows the last (successful) command"
sg -ex 'echo before\n' -ex 'frobnicate'
is "$STATUS" 1 "status follows the last (failing) command"

# -x and -ex run in the order given.
printf 'echo file\\n\n' >order.sg
sg -ex 'echo first\n' -x order.sg -ex 'echo last\n'
is "$OUT" $'first\nfile\nlast' "-x and -ex run in order"

# source, nested, and its errors.
printf 'echo inner\\n\nsource order.sg\n' >outer.sg
sg -ex 'source outer.sg'
is "$OUT" $'inner\nfile' "source runs a file that sources another"
printf 'source loop.sg\n' >loop.sg
sg -ex 'source loop.sg'
like "$ERR" "files are sourced 16 deep; is there a loop\?" "a sourcing loop is cut"
sg -ex 'source /nonexistent/x.sg'
is "$ERR" "cannot open /nonexistent/x.sg: No such file or directory" "source of a missing file"

# The convenience form runs one command in batch mode.
OUT=$("$SG_BIN" -nx -- echo hello world\\n 2>&1)
is "$OUT" "hello world" "spyglass -- CMD ARGS runs one command"

# Abbreviations, help and settings.
sg -ex 'help'
like "$OUT" '^info threads +-- List the threads' "help lists commands"
like "$OUT" '^x\[/NFU\] \[ADDRESS\] +-- Examine memory' "help shows synopses"
sg -ex 'help x'
like "$OUT" '^Usage: x\[/NFU\] \[ADDRESS\]' "help CMD shows usage"
like "$OUT" 's string, a address' "help CMD shows details"
sg -ex 'help info'
like "$OUT" '^List of info subcommands:' "help of a prefix lists its subcommands"
like "$OUT" '^info sharedlibrary' "... including info sharedlibrary"
sg -ex 'h i thr'
like "$OUT" '^Usage: info threads' "help with abbreviations"
sg -ex 'help frob'
is "$ERR" 'Undefined command: "frob".  Try "help".' "help of an unknown command"
sg -ex 'i a'
is "$ERR" 'Ambiguous info command "a": address, all-registers, args, auxv.' \
	"ambiguous abbreviation: the candidates in gdb's order"
sg -ex 'info'
is "$ERR" '"info" must be followed by the name of a subcommand.  Try "help info".' "prefix without subcommand"
sg -ex 'info threads'
like "$ERR" '^no target: use "attach PID" or "core-file CORE", or start with -p PID or -c CORE$' "a command that needs a target"

sg -ex 'show print elements' -ex 'set print elements 50' -ex 'show print elements' -ex 'set print elem unlimited' -ex 'sho print el'
is "$OUT" $'Limit on string chars or array elements to print is 200.\nLimit on string chars or array elements to print is 50.\nLimit on string chars or array elements to print is unlimited.' "set and show print elements"
sg -ex 'set print elements many'
is "$ERR" '"print elements" needs a number or "unlimited", not "many"' "bad setting value"
sg -ex 'set output-format json' -ex 'echo x'
is "$OUT" '{"text":"x"}' "set output-format json switches to JSON"
sg -ex 'show'
like "$OUT" '^Output format of commands \(text or json\) is text\.$' "show lists all settings"

sg -ex 'quit 3' -ex 'echo not reached'
is "$OUT$STATUS" "3" "quit STATUS stops and sets the exit status"

# The init file, and -nx.
mkdir -p home
printf 'echo from rc\\n\n' >home/.spyglassrc
OUT=$(HOME=$testdir/home "$SG_BIN" -batch -ex 'echo cmd\n' 2>&1)
is "$OUT" $'from rc\ncmd' "~/.spyglassrc runs first"
OUT=$(HOME=$testdir/home "$SG_BIN" -nx -batch -ex 'echo cmd\n' 2>&1)
is "$OUT" "cmd" "-nx skips ~/.spyglassrc"

# Commands from a pipe when stdin is not a terminal.
OUT=$(printf 'echo piped\\n\nfrobnicate\necho on\\n\n' | "$SG_BIN" -nx 2>&1)
is "$OUT" $'piped\nstdin:2: Undefined command: "frobnicate".  Try "help".\non' "commands from a pipe; errors do not stop it"

# Usage errors exit 64.
"$SG_BIN" --frobnicate >/dev/null 2>"$testdir/e"
is "$?" 64 "unknown option exits 64"
like "$(cat "$testdir/e")" 'unknown option or argument "--frobnicate"' "unknown option message"
"$SG_BIN" -p >/dev/null 2>"$testdir/e"
is "$?" 64 "missing option value exits 64"
"$SG_BIN" -p abc >/dev/null 2>"$testdir/e"
is "$(cat "$testdir/e")" 'spyglass: invalid process ID "abc"' "a PID that is not a number"
"$SG_BIN" -p 0 -batch >/dev/null 2>"$testdir/e"
is "$?" 64 "PID 0 is a usage error"
OUT=$("$SG_BIN" --version)
like "$OUT" '^spyglass [0-9]+\.[0-9]+\.[0-9]+$' "--version"
OUT=$("$SG_BIN" --help)
like "$OUT" 'Exit status: 0 success' "--help documents the exit status"
done_testing
