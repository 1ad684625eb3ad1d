# lib/console-patterns -> the C table bpk is built with (build/bpk/gen/patterns.h).
# A kind or scope that protocol.h does not know fails the compile.
BEGIN {
	print "/* Generated from lib/console-patterns by bpk/gen-patterns.awk: edit that. */"
	print "const struct console_pattern console_patterns[] = {"
}
/^[ \t]*#/ || NF == 0 { next }
{
	kind = toupper($1)
	scope = $2 == "line" ? "SCOPE_LINE" : $2 == "panic" ? "SCOPE_PANIC" : "SCOPE_UNKNOWN_" $2
	if (!match($0, /"[^"]*"/)) {
		printf "#error \"lib/console-patterns line %d: no quoted text\"\n", NR
		next
	}
	printf "\t{ PAT_%s, %s, %s },\n", kind, scope, substr($0, RSTART, RLENGTH)
}
END { print "};" }
