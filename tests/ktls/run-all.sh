#!/bin/sh
# Run each kernel test program given as an argument (inside one UML guest),
# print a banner per program, and exit 1 if any failed.
status=0
for prog in "$@"; do
	echo "=== $prog (kernel $(uname -r))"
	"$prog" || { echo "=== FAILED: $prog"; status=1; }
done
exit $status
