# tests/difftest/lib.sh: the differential tester's engine, sourced by
# tests/run-difftest.sh (make check), bench/difftest.sh (the soak) and
# tests/difftest/minimise.sh.  See doc/difftest.md.
#
# The caller sets top_builddir and top_srcdir, then calls dt_init DIR.
# For each (seed, language, build): dt_run SEED LANG BUILD [GENARGS...]
# generates the program (tests/difftest/gen), compiles it, starts it, waits
# until every thread is blocked, and compares spyglass with gdb on that
# process.  Each difference is one record, "KIND: gdb: LINE || sg: LINE",
# classified by tests/difftest/quirks (dt_classify).  Totals in dt_n_*.
#
# What is compared, all on the same process, spyglass's output against
# gdb's, with both on "set backtrace past-main on":
# - thread apply all bt (spyglass's default unwinders), normalised as
#   tests/run-bt.sh says (argument lists dropped, "from" paths as real
#   paths; gdb's "Thread 0x... (LWP N)" header in spyglass's form); frames
#   aligned without their "#N" (a missing frame is one record, not a shift
#   of every later line: the numbers follow from the order);
# - thread apply all bt -u cfi: the function names of each thread;
# - thread apply all bt -u fp, in builds with frame pointers: the name of
#   every frame at an address gdb's backtrace also has;
# - info locals and info args in the first frames of each thread whose
#   backtrace names agree with gdb's up to that frame;
# - print and whatis of every global, print of parts of them (members,
#   elements, formats: gen's "cmd" lines), ptype of every type the
#   generator made.  "$N = " is compared as "$ = ": each value is its own item, and a
#   print one side refuses would shift the other's history numbers.  The
#   lines of one item are compared as one (a ptype is one record).
# Both sides' stdout and stderr, as one stream.

dt_builds_all() {	# every build of the matrix, one a line
	local cc o fp d pie
	for cc in gcc clang; do
		for o in O0 O1 O2 O3 Os; do
			for fp in fp nofp; do
				for d in d4 d5; do
					for pie in pie nopie; do
						echo "$cc-$o-$fp-$d-$pie"
					done
				done
			done
		done
	done
}

# dt_init DIR: find the tools; DIR holds the programs and the outputs.
dt_init() {
	dt_dir=$1
	# gdb prints characters past ASCII as the locale says; spyglass as in UTF-8.
	export LC_ALL=C.UTF-8
	mkdir -p "$dt_dir"
	dt_gen=$top_builddir/tests/difftest/gen
	dt_quirks=${DT_QUIRKS:-$top_srcdir/tests/difftest/quirks}
	dt_sg=$top_builddir/shell/.libs/spyglass
	[ -x "$dt_sg" ] || dt_sg=$top_builddir/shell/spyglass
	export LD_LIBRARY_PATH=$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if [ -z "${SPYGLASS_PLUGIN_PATH:-}" ]; then
		local p path=
		for p in cfi-unwind fp-unwind libstdcxx; do
			path=$path${path:+:}$top_builddir/plugins/$p/.libs
		done
		export SPYGLASS_PLUGIN_PATH=$path
	fi
	dt_gdb=${GDB:-$(command -v gdb)}
	dt_have_gcc=0 dt_have_clang=0
	command -v gcc >/dev/null && command -v g++ >/dev/null && dt_have_gcc=1
	command -v clang >/dev/null && command -v clang++ >/dev/null && dt_have_clang=1
	dt_pids=()
	dt_n_programs=0 dt_n_builds=0 dt_n_frames=0 dt_n_locals=0 dt_n_values=0 dt_n_types=0
	dt_n_records=0 dt_n_unexplained=0
	: >"$dt_dir/records"
	: >"$dt_dir/classified"
	dt_timeout=${DT_TIMEOUT:-60}
}

dt_kill_all() {
	local p
	for p in "${dt_pids[@]}"; do
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	dt_pids=()
	return 0
}

# dt_compile SRC LANG BUILD EXE: the flags of BUILD (cc-O-fp-dwarf-pie).
# The source by its full path: gdb prints the file name the compiler was
# given (see doc/difftest.md: spyglass prints the full path).
dt_compile() {
	local src=$1 lang=$2 build=$3 exe=$4 cc o fp d pie flags
	IFS=- read -r cc o fp d pie <<<"$build"
	case $cc-$lang in
	gcc-c) cc=gcc ;;
	gcc-c++) cc=g++ ;;
	clang-c) cc=clang ;;
	clang-c++) cc=clang++ ;;
	esac
	flags=(-"$o" -g -pthread -w)
	[ "$fp" = fp ] && flags+=(-fno-omit-frame-pointer) || flags+=(-fomit-frame-pointer)
	[ "$d" = d4 ] && flags+=(-gdwarf-4) || flags+=(-gdwarf-5)
	[ "$pie" = pie ] && flags+=(-fPIE -pie) || flags+=(-fno-pie -no-pie)
	[ "$lang" = c++ ] && flags+=(-std=gnu++17)
	"$cc" "${flags[@]}" -o "$exe" "$src" 2>"$exe.cc-err"
}

# dt_start EXE NTHREADS: start EXE, wait until NTHREADS threads wrote their
# "tid" line and every thread sits in a blocking system call.  Sets dt_pid.
dt_start() {
	local exe=$1 want=$2 i t s ok
	: >"$exe.out"
	"$exe" >"$exe.out" 2>&1 &
	dt_pid=$!
	dt_pids+=("$dt_pid")
	for ((i = 0; i < 500; i++)); do
		if [ "$(grep -c '^tid ' "$exe.out")" -ge "$want" ]; then
			ok=1
			for t in /proc/"$dt_pid"/task/*; do
				read -r s _ <"$t/syscall" 2>/dev/null || s=x
				# read, poll, pause, futex, ppoll
				case $s in 0 | 7 | 34 | 202 | 271) ;; *) ok=0 ;; esac
			done
			[ "$ok" = 1 ] && return 0
		fi
		kill -0 "$dt_pid" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

# dt_tool sg|gdb OUT CMD...: run a tool on dt_pid with the commands, each
# after an "echo @@NAME" marker line given as "@@NAME" in the list.
dt_tool() {
	local tool=$1 out=$2 c args=()
	shift 2
	for c in "$@"; do
		if [ "${c#@@}" != "$c" ]; then
			args+=(-ex "echo \\n$c\\n")
		else
			args+=(-ex "$c")
		fi
	done
	if [ "$tool" = sg ]; then
		timeout -k 5 "$dt_timeout" "$dt_sg" -nx -batch -p "$dt_pid" "${args[@]}" >"$out" 2>&1
	else
		timeout -k 5 "$dt_timeout" "$dt_gdb" -nx -batch -p "$dt_pid" "${args[@]}" >"$out" 2>&1
	fi
}

# dt_split FILE DIR: the sections of a tool's output, after each marker, in
# DIR/NAME (from "@@NAME"), trailing empty lines dropped.
dt_split() {
	rm -rf "$2"
	mkdir -p "$2"
	# gdb's "warning: RTTI symbol not found for class '...'" goes to
	# stderr in the middle of a value's line: out, the line joined again.
	awk -v dir="$2" '
	{
		while (match($0, /warning: RTTI symbol not found for class .*$/)) {
			$0 = substr($0, 1, RSTART - 1)
			if ((getline more) > 0)
				$0 = $0 more
		}
	}
	/^@@/ { if (f != "") close(f); f = dir "/" substr($0, 3); printf "" > f; nb = 0; next }
	f == "" { next }
	/^$/ { nb++; next }
	/^\[Inferior [0-9]+ \(process [0-9]+\) detached\]$/ { next }
	{ while (nb > 0) { print "" > f; nb-- } print > f }' "$1"
}

# dt_bt_norm DIR < BT: a "thread apply all bt" as DIR/headers and, per
# thread, DIR/TID (frame lines without "#N " and without arguments).
dt_bt_norm() {
	local dir=$1 f m
	rm -rf "$dir"
	mkdir -p "$dir"
	awk -v dir="$dir" '
	BEGIN { cur = dir "/0"; hdr = dir "/headers"; printf "" > hdr }
	/^Thread [0-9]+ / {
		num = $2
		lwp = $0; sub(/.*LWP /, "", lwp); sub(/[^0-9].*/, "", lwp)
		name = ""
		if (match($0, /"[^"]*"\):$/))
			name = " " substr($0, RSTART, RLENGTH - 2)
		print "Thread " num " (LWP " lwp name "):" > hdr
		cur = dir "/" lwp
		printf "" > cur
		print lwp > (dir "/tids")
		next
	}
	/^#[0-9]+ / {
		sub(/^#[0-9]+ +/, "")
		loc = ""
		if (match($0, / at [^ ]+:[0-9]+$/) || match($0, / from [^ ]+$/)) {
			loc = substr($0, RSTART)
			$0 = substr($0, 1, RSTART - 1)
		}
		# Drop the argument list: the balanced (...) at the end, after a
		# space.  Parentheses inside a char or string argument (p=40
		# followed by the quoted char, s="a)") do not count.
		if ($0 ~ /\)$/) {
			d = 0; q = ""; start = 0; n = length($0)
			for (i = 1; i <= n; i++) {
				c = substr($0, i, 1)
				if (q != "") {
					if (c == "\\") i++
					else if (c == q) q = ""
					continue
				}
				if (d > 0 && (c == "\047" || c == "\"")) q = c
				else if (c == "(" && d++ == 0) open = i
				else if (c == ")" && d > 0 && --d == 0 && i == n && open > 1 &&
					 substr($0, open - 1, 1) == " ")
					start = open
			}
			if (start)
				$0 = substr($0, 1, start - 2) " ()"
		}
		print $0 loc > cur
	}' 
	[ -e "$dir/tids" ] || echo 0 >"$dir/tids"
	for f in "$dir"/[0-9]*; do
		[ -e "$f" ] || continue
		for m in $(grep -o ' from [^ ]*$' "$f" | sort -u | cut -d' ' -f3); do
			sed -i "s| from $m\$| from $(readlink -f "$m")|" "$f"
		done
	done
}

# dt_names FILE: the function of each normalised frame line.
dt_names() {
	sed -E 's/^0x[0-9a-f]+ in //; s/ \(\)( at [^ ]+:[0-9]+| from [^ ]+)?$//' "$1"
}

# dt_diff KIND GDBFILE SGFILE CONTEXT: append a record per differing line
# pair to $dt_dir/records ("CONTEXT<TAB>KIND: gdb: A || sg: B").
dt_diff() {
	local kind=$1 g=$2 s=$3 ctx=$4
	[ -e "$g" ] || : >"$g"
	[ -e "$s" ] || : >"$s"
	cmp -s "$g" "$s" && return 0
	diff --old-line-format='-%L' --new-line-format='+%L' --unchanged-line-format='=%L' "$g" "$s" |
		awk -v kind="$kind" -v ctx="$ctx" '
		function flush(   i, n) {
			n = ng > ns ? ng : ns
			for (i = 1; i <= n; i++)
				print ctx "\t" kind ": gdb: " (i <= ng ? G[i] : "(none)") " || sg: " (i <= ns ? S[i] : "(none)")
			ng = ns = 0
		}
		/^-/ { G[++ng] = substr($0, 2); next }
		/^\+/ { S[++ns] = substr($0, 2); next }
		{ flush() }
		END { flush() }' >>"$dt_dir/records"
}

# dt_diff_vars KIND GDBFILE SGFILE CONTEXT: info locals / info args, one
# record per variable that differs (matched by name, a shadowed name by its
# occurrence), and one "order" record if the common ones come in another
# order.
dt_diff_vars() {
	local kind=$1 g=$2 s=$3 ctx=$4
	[ -e "$g" ] || : >"$g"
	[ -e "$s" ] || : >"$s"
	cmp -s "$g" "$s" && return 0
	# A side that is one message ("No locals.", "No symbol table info
	# available."): one record for the item, the other side joined.
	if grep -qx 'No [a-z ]*\.' "$g" || grep -qx 'No [a-z ]*\.' "$s"; then
		printf '%s\t%s: gdb: %s || sg: %s\n' "$ctx" "$kind" "$(awk 'NR > 1 { printf " ;; " } { printf "%s", $0 }' "$g")" \
			"$(awk 'NR > 1 { printf " ;; " } { printf "%s", $0 }' "$s")" >>"$dt_dir/records"
		return 0
	fi
	awk -v kind="$kind" -v ctx="$ctx" '
	function key(line,   k) {
		k = line
		if (match(line, / = /)) k = substr(line, 1, RSTART - 1)
		return k "#" (++seen[FILENAME, k])
	}
	FNR == 1 { f++ }
	f == 1 { k = key($0); G[k] = $0; go[++ng] = k; next }
	{ k = key($0); S[k] = $0; so[++ns] = k }
	END {
		for (i = 1; i <= ng; i++) {
			k = go[i]
			if (!(k in S)) print ctx "\t" kind ": gdb: " G[k] " || sg: (none)"
			else if (G[k] != S[k]) print ctx "\t" kind ": gdb: " G[k] " || sg: " S[k]
			else a = a " " k
		}
		for (i = 1; i <= ns; i++) {
			k = so[i]
			if (!(k in G)) print ctx "\t" kind ": gdb: (none) || sg: " S[k]
			else if (G[k] == S[k]) b = b " " k
		}
		if (a != b) {
			gsub(/#1/, "", a); gsub(/#1/, "", b)
			print ctx "\t" kind ": order: gdb:" a " || sg:" b
		}
	}' "$g" "$s" >>"$dt_dir/records"
}

# dt_run SEED LANG BUILD [GEN ARGS...]: one program, one build, compared.
# Returns 1 if it could not be built or started (a record says why).
dt_run() {
	local seed=$1 lang=$2 build=$3
	shift 3
	local w=$dt_dir/$seed-$lang-$build
	local src=$w/prog.c ctx="seed=$seed lang=$lang build=$build${*:+ gen=$*}"
	[ "$lang" = c++ ] && src=$w/prog.cc
	rm -rf "$w"
	mkdir -p "$w"
	"$dt_gen" -s "$seed" -x "$lang" "$@" >"$src" &&
		"$dt_gen" -s "$seed" -x "$lang" -m "$@" >"$w/meta" || {
		printf '%s\tsetup: gen failed\n' "$ctx" >>"$dt_dir/records"
		return 1
	}
	if ! dt_compile "$src" "$lang" "$build" "$w/prog"; then
		printf '%s\tsetup: compile failed: %s\n' "$ctx" "$(head -c 300 "$w/prog.cc-err" | tr '\n' ' ')" >>"$dt_dir/records"
		return 1
	fi
	dt_n_builds=$((dt_n_builds + 1))
	local nth
	nth=$(awk '$1 == "threads" { print $2 }' "$w/meta")
	if ! dt_start "$w/prog" "$nth"; then
		printf '%s\tsetup: the program did not block in %s threads\n' "$ctx" "$nth" >>"$dt_dir/records"
		dt_kill_all
		return 1
	fi
	local PM='set backtrace past-main on'

	# Backtraces.
	dt_tool gdb "$w/gdb1" "$PM" @@bt 'thread apply all bt'
	local fp=()
	case $build in *-fp-*) fp=(@@fp 'thread apply all bt -u fp') ;; esac
	dt_tool sg "$w/sg1" "$PM" @@bt 'thread apply all bt' @@cfi 'thread apply all bt -u cfi' "${fp[@]}"
	dt_split "$w/gdb1" "$w/g1"
	dt_split "$w/sg1" "$w/s1"
	dt_bt_norm "$w/gbt" <"$w/g1/bt"
	dt_bt_norm "$w/sbt" <"$w/s1/bt"
	dt_bt_norm "$w/scfi" <"$w/s1/cfi"
	[ -e "$w/s1/fp" ] && dt_bt_norm "$w/sfp" <"$w/s1/fp"
	dt_diff bt-headers "$w/gbt/headers" "$w/sbt/headers" "$ctx"
	local tid tnum k nf nmatch cmds=("$PM")
	for tid in $(cat "$w/gbt/tids"); do
		nf=$(wc -l <"$w/gbt/$tid")
		dt_n_frames=$((dt_n_frames + nf))
		dt_diff bt "$w/gbt/$tid" "$w/sbt/$tid" "$ctx thread $tid"
		dt_names "$w/gbt/$tid" >"$w/gbt/$tid.names"
		dt_names "$w/scfi/$tid" >"$w/scfi/$tid.names" 2>/dev/null
		dt_diff bt-cfi "$w/gbt/$tid.names" "$w/scfi/$tid.names" "$ctx thread $tid"
		# bt -u fp (builds with frame pointers): gdb has no such
		# unwinder, so what is compared is the name of each frame the
		# walk finds at an address gdb's backtrace also has.
		if [ -e "$w/sfp/$tid" ]; then
			awk -v ctx="$ctx thread $tid" '
			FNR == 1 { f++ }
			!/^0x[0-9a-f]+ in / { next }
			{ a = $1; n = $0; sub(/^0x[0-9a-f]+ in /, "", n); sub(/ \(\)( at .*| from .*)?$/, "", n) }
			f == 1 { if (!(a in G)) G[a] = n; next }
			(a in G) && G[a] != n { print ctx "\tbt-fp: gdb: " a " " G[a] " || sg: " a " " n }' \
				"$w/gbt/$tid" "$w/sfp/$tid" >>"$dt_dir/records"
		fi
		# Locals in the frames both name alike, from the innermost on.
		dt_names "$w/sbt/$tid" >"$w/sbt/$tid.names" 2>/dev/null
		nmatch=$(paste -d '\t' "$w/gbt/$tid.names" "$w/sbt/$tid.names" |
			awk -F '\t' '$1 != $2 { exit } { n++ } END { print n + 0 }')
		[ "$nmatch" -gt "${DT_MAX_FRAMES:-12}" ] && nmatch=${DT_MAX_FRAMES:-12}
		tnum=$(sed -n "s/^Thread \([0-9]*\) (LWP $tid[ )].*/\1/p" "$w/gbt/headers")
		[ -n "$tnum" ] || continue
		cmds+=(@@skip "thread $tnum")
		# The item names the frame's function, and says "inlined" when
		# the frame above it has no address: its code is inlined there.
		# "-entry" when gdb's frame line shows an entry value (n@entry=).
		for ((k = 0; k < nmatch; k++)); do
			local fn inl= ent=
			# A file name: no "/", and short enough (long template
			# names would exceed NAME_MAX).
			fn=$(sed -n "$((k + 1))p" "$w/gbt/$tid.names" | tr -d ' ' | tr / _ | cut -c1-160)
			sed -n "$((k + 2))p" "$w/gbt/$tid" | grep -q '^0x' || inl=-inlined
			awk -v t="$tid" -v k="$k" '/^Thread / { on = index($0, "LWP " t ")") > 0 } on && $1 == "#" k' "$w/g1/bt" |
				grep -q '@entry=' && ent=-entry
			cmds+=(@@skip "frame $k" "@@locals-$tid-$k-$fn$inl$ent" 'info locals' "@@args-$tid-$k-$fn$inl$ent" 'info args')
		done
	done
	# Values and types.
	local g t
	while read -r g; do
		cmds+=("@@print-$g" "print $g" "@@whatis-$g" "whatis $g")
	done < <(awk '$1 == "global" { print $2 }' "$w/meta")
	k=0
	while read -r t; do
		cmds+=("@@expr-$k" "$t")
		k=$((k + 1))
	done < <(sed -n 's/^cmd //p' "$w/meta")
	k=0
	while read -r t; do
		cmds+=("@@ptype-$k" "ptype $t")
		k=$((k + 1))
	done < <(sed -n 's/^type //p' "$w/meta")
	dt_tool gdb "$w/gdb2" "${cmds[@]}"
	dt_tool sg "$w/sg2" "${cmds[@]}"
	dt_split "$w/gdb2" "$w/g2"
	dt_split "$w/sg2" "$w/s2"
	local f base kind x
	for f in "$w"/g2/*; do
		base=${f##*/}
		kind=${base%%-*}
		[ "$kind" = skip ] && continue
		case $kind in
		locals | args)
			dt_n_locals=$((dt_n_locals + $(grep -c ' = ' "$f")))
			dt_diff_vars "$kind" "$f" "$w/s2/$base" "$ctx ${base#*-}"
			;;
		print | whatis | ptype | expr)
			# One record per item: its lines joined by " ;; ".
			for x in "$f" "$w/s2/$base"; do
				[ -e "$x" ] || : >"$x"
				sed 's/^\$[0-9]* = /$ = /' "$x" | awk 'NR > 1 { printf " ;; " } { printf "%s", $0 } END { print "" }' >"$x.j"
			done
			if [ "$kind" = ptype ]; then
				dt_n_types=$((dt_n_types + 1))
				dt_diff "$kind" "$f.j" "$w/s2/$base.j" "$ctx $(sed -n "$((${base#*-} + 1))p" <(sed -n 's/^type //p' "$w/meta"))"
			else
				dt_n_values=$((dt_n_values + 1))
				[ "$kind" = expr ] && kind="print"
				dt_diff "$kind" "$f.j" "$w/s2/$base.j" "$ctx $([ "${base%%-*}" = expr ] && sed -n "$((${base#*-} + 1))p" <(sed -n 's/^cmd //p' "$w/meta") || echo "${base#*-}")"
			fi
			;;
		esac
	done
	kill -9 "$dt_pid" 2>/dev/null
	wait "$dt_pid" 2>/dev/null
	return 0
}

# dt_classify: each record's class, from the first quirk that explains it;
# "UNEXPLAINED" if none.  A quirk is "CLASS<TAB>PATTERN<TAB>REASON", or
# "CLASS<TAB>PATTERN<TAB>REASON<TAB>SUBST": PATTERN is a Perl regular
# expression matched against "CONTEXT<TAB>RECORD"; SUBST, a Perl s///
# applied to each side of a "KIND: gdb: A || sg: B" record, must then make
# the two sides equal (so that it explains that difference, not any other
# on the same line).  A record no quirk explains alone may be explained by
# the substitutions of all those whose pattern matches it, in order: its
# class is then "A+B".  Writes $dt_dir/classified ("CLASS<TAB>CONTEXT<TAB>
# RECORD"), sets dt_n_records and dt_n_unexplained.
dt_classify() {
	perl -e '
	my @q;
	open(my $qf, "<", $ARGV[0]) or die "$ARGV[0]: $!\n";
	while (<$qf>) {
		chomp;
		next if /^#/ || !/\t/;
		my ($class, $pat, $reason, $subst) = split /\t/;
		my $re = eval { qr/$pat/ } or die "$ARGV[0]:$.: bad pattern: $@";
		my $sub;
		if (defined $subst && $subst ne "") {
			$sub = eval "sub { local \$_ = shift; $subst; return \$_ }" or die "$ARGV[0]:$.: bad substitution: $@";
		}
		push @q, [$class, $re, $sub];
	}
	open(my $rf, "<", $ARGV[1]) or die "$ARGV[1]: $!\n";
	while (my $line = <$rf>) {
		chomp $line;
		my $c = "UNEXPLAINED";
		for my $q (@q) {
			next unless $line =~ $q->[1];
			if ($q->[2]) {
				my (undef, $rec) = split /\t/, $line, 2;
				next unless $rec =~ /^[\w-]+: gdb: (.*) \|\| sg: (.*)$/;
				next unless $q->[2]->($1) eq $q->[2]->($2);
			}
			$c = $q->[0];
			last;
		}
		# Two known differences on one line: every substitution of the
		# quirks whose pattern matches, one after the other.
		if ($c eq "UNEXPLAINED") {
			my @m = grep { $line =~ $_->[1] && $_->[2] } @q;
			my (undef, $rec) = split /\t/, $line, 2;
			if (@m > 1 && $rec =~ /^[\w-]+: gdb: (.*) \|\| sg: (.*)$/) {
				my ($g, $s) = ($1, $2);
				for my $q (@m) {
					$g = $q->[2]->($g);
					$s = $q->[2]->($s);
				}
				my %u;
				$c = join "+", grep { !$u{$_}++ } map { $_->[0] } @m if $g eq $s;
			}
		}
		print "$c\t$line\n";
	}' "$dt_quirks" "$dt_dir/records" >"$dt_dir/classified"
	dt_n_records=$(wc -l <"$dt_dir/classified")
	dt_n_unexplained=$(grep -c '^UNEXPLAINED	' "$dt_dir/classified")
}

# dt_summary: the counts, and the records by class.
dt_summary() {
	echo "programs $dt_n_programs, builds $dt_n_builds, frames $dt_n_frames, locals and args $dt_n_locals, values $dt_n_values, types $dt_n_types"
	echo "divergences $dt_n_records, unexplained $dt_n_unexplained; by class:"
	cut -f1 "$dt_dir/classified" | sort | uniq -c | sort -rn
	# Classes no record needed: candidates for removal once a soak long
	# enough to reach their programs shows them unused.
	local unused
	unused=$(awk -F'\t' 'FNR == NR { split($1, c, "+"); for (i in c) seen[c[i]] = 1; next }
		/^#/ || NF < 3 { next }
		!($1 in seen) && !($1 in told) { told[$1] = 1; printf "%s%s", n++ ? " " : "", $1 }' \
		"$dt_dir/classified" "$dt_quirks")
	echo "quirk classes that explained nothing: ${unused:-none}"
}
