# shellcheck shell=bash
# Recording benchmark figures: each measurement is a list of values; a row
# keeps n, median, min and max, in the results file (tab-separated) and for
# the table printed at the end.

# stats VALUE...: "n median min max"
stats() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "0 - - -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%d %s %s %s\n", NR, f(m), f(v[1]), f(v[NR]) }
		function f(x) { return x >= 100 || x <= -100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }'
}

# record SECTION METRIC UNIT NOTE VALUE...: one row, to $results (set by
# the caller: the results file) and stdout
record() {
	local section=$1 metric=$2 unit=$3 note=$4 n median min max
	shift 4
	read -r n median min max < <(stats "$@")
	# shellcheck disable=SC2154 # results: set by the caller
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$section" "$metric" "$unit" "$n" "$median" \
		"$min" "$max" "$note" >>"$results"
	say "$section: $metric = $median $unit (n=$n, min $min, max $max)${note:+ - $note}"
}

# seconds MS: milliseconds as seconds with two decimals
seconds() {
	printf '%d.%02d' $(($1 / 1000)) $((($1 % 1000) / 10))
}

# meta RUN PATH: a field of a run's record (run.json, by its dotted path),
# through the analysis's reader of it
meta() {
	/usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/../analysis/bpk_record.py" "$1" "$2"
}

# json_timing RUN KEY: timings.KEY of a run's report.json (Debian's python3:
# the json module, no scraping)
json_timing() {
	/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["timings"][sys.argv[2]])' \
		"$1/report.json" "$2"
}

# newest_run DIR: the last run filed under DIR
newest_run() {
	find "$1" -mindepth 1 -maxdepth 1 -type d -name '2*' | sort | tail -1
}
