# zeek_gdb_walk ERA: print a gdb command file that walks the Zeek layout
# fixture's call_stack as a gdb user reads it: for each entry, innermost
# first, a line "NAME<tab>" then the function's name as gdb prints it
# and, where the next entry has a CallExpr, a tab and its first line (the
# call site in the caller).  3.0 and 3.1 (eras 30, 302, 31) have
# call_stack in the global namespace; 8.1 keeps the Func in the entry's
# Frame, the eras before it in CallInfo::func.  "set language c++" first:
# when the stop lands in libc gdb takes the frame's language, C, and
# cannot parse zeek::detail::call_stack.  Sourced by tests/run-zeek.sh
# and bench/zeek-bt.sh, so that the test and the benchmark ask gdb the
# same question.
#
# zeek_walk_names ERA sets zk_cs (the call stack's name) and zk_fn (the
# entry's path to its Func) for ERA; zeek_gdb_walk uses them.
zeek_walk_names() {
	zk_cs=zeek::detail::call_stack zk_fn=func
	case $1 in 30 | 302 | 31) zk_cs=call_stack ;; 81) zk_fn='frame->function' ;; esac
}

zeek_gdb_walk() {
	zeek_walk_names "$1"
	cat <<EOS
set language c++
set \$s = $zk_cs._M_impl._M_start
set \$n = $zk_cs._M_impl._M_finish - \$s
set \$i = \$n - 1
while \$i >= 0
  echo NAME\\t
  output \$s[\$i].$zk_fn->name
  if \$i + 1 < \$n
    if \$s[\$i + 1].call != 0
      echo \\t
      output \$s[\$i + 1].call->location->first_line
    end
  end
  echo \\n
  set \$i = \$i - 1
end
EOS
}
