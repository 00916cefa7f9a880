// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz-parser: libFuzzer target for the hook's input parsing, the part
 * of the hook that reads what a container author controls.
 *
 * An input is the state, a NUL byte, then config.json (no NUL: all of
 * it is the state).  Each goes through what the hook does with it:
 * state_parse, config_parse (with a fixed bundle when the state gave
 * none), and hook_input_validate when there is a user namespace.  The
 * whole input is also what the privileged hook decodes from its parser
 * child (hook_input_decode): a compromised child controls those bytes.
 * Built by `make -C oci-hook fuzz`, run by tests/host/hook_fuzz_parser.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "privsep.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy, as the hook's readers produce. */
static char *copy(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t state_len = nul ? (size_t)(nul - data) : size;
	size_t config_len = nul ? size - state_len - 1 : 0;
	char *state = copy(data, state_len);
	char *config = copy(nul ? nul + 1 : data, config_len);
	struct hook_input in;
	struct error e = { 0, "" };

	memset(&in, 0, sizeof(in));
	state_parse(state, state_len, &in, &e);
	if (!in.bundle)
		in.bundle = strdup("/run/bundle");
	if (in.bundle && config_parse(config, config_len, &in, &e) == 0 &&
	    in.has_userns)
		hook_input_validate(&in, &e);
	hook_input_free(&in);
	memset(&in, 0, sizeof(in));
	hook_input_decode((const char *)data, size, &in, &e);
	hook_input_free(&in);
	free(state);
	free(config);
	return 0;
}
