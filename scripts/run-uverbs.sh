#!/bin/bash
# User verbs in a guest (`make check-uverbs`, a `make test` tier):
# selftests/verbs/uverbs.py with vhca.ko and the provider of
# build/provider.  Writes build/results/uverbs.txt ("passed=N failed=M").
exec "$(dirname "$0")/run-verbs-pytest.sh" uverbs selftests/verbs/uverbs.py
