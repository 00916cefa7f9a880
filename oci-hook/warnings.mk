# oci-hook/warnings.mk: the project's one list of C warnings, errors all
# (STYLE.md: bubblewrap's list).  Included by oci-hook/Makefile (the hook,
# the CLI, their tests) and by the top-level Makefile (the probe, the
# fuzz and bench programs); `make -s -C oci-hook print-warnings` prints
# it for scripts (tests/host/configfd_wrapper.sh).
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -Wswitch-enum -Wpointer-arith -Wundef -Wvla \
	-Wimplicit-fallthrough
