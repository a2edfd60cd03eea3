#!/bin/sh
# The real verifier ($REAL_VERIFY) on the findings with a wrong fix added
# (program-fixtures.py): what libtorch-tidy --verify --fix-only runs in
# verify-program-fix-only.test.
exec "${PYTHON:-python3}" "$(dirname "$0")/program-fixtures.py" wrap "$REAL_VERIFY" "$@"
