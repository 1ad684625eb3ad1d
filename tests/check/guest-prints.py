#!/usr/bin/python3
"""Prints of guest text that bypass the escape, found in C sources.

    guest-prints.py FILE.c...

A statement that calls printf, fprintf, dprintf, fputs or puts (the
funnels p_err, p_info, die, usage_error and print_line escape what they
print) and names a field that holds guest bytes (the console's panic
line, refusal, states, oops, a capture status, a reason built from them)
must pass it through escape_text or escape_into in that statement. One
"FILE:LINE: statement" line per finding on stdout; exit 1 if any.
"""

import re
import sys

PRINTS = re.compile(r"\b(printf|fprintf|dprintf|fputs|puts|vfprintf)\s*\(")
GUEST = re.compile(r"\b(panic_msg|capture_panic|refused|last_state|oops|oops_where|"
                   r"action|reason|why|detail|cause_detail|last_reason|st_status|"
                   r"status_get|fire_text)\b")


def statements(text):
    """(line, statement) for each ;-ended statement, comments and string
    literals kept (a field named inside a string is text, not a field:
    literals are blanked before the field names are looked for)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    start, line = 0, 1
    for m in re.finditer(r";|\{|\}", text):
        stmt = text[start:m.end()]
        yield line + stmt[:len(stmt) - len(stmt.lstrip())].count("\n"), stmt.strip()
        line += stmt.count("\n")
        start = m.end()


def main(files):
    found = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line, stmt in statements(text):
            if not PRINTS.search(stmt):
                continue
            bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', stmt)
            if GUEST.search(bare) and "escape_" not in bare:
                print(f"{path}:{line}: {' '.join(stmt.split())[:160]}")
                found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
