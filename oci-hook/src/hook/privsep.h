/* SPDX-License-Identifier: GPL-2.0 */
/*
 * privsep.h: the hook's privilege separation, after OpenSSH's preauth
 * child and bubblewrap.  The bytes a container's author controls (the
 * OCI state, config.json and its annotations) are parsed only in a
 * child that holds nothing worth taking and that no one else can
 * reach: a fresh exec of the hook's own binary (opened when the hook
 * started) in parser mode, as OpenSSH re-execs sshd, not a fork of the
 * privileged process; its own uid (PARSER_USER) when the hook is real
 * root, so that no other uid can signal or trace it; no capabilities,
 * no_new_privs, not dumpable, no open file but its two pipes and
 * stderr, and a seccomp filter that allows little more than read, write
 * and exit (sandbox.h).  It hands the hook a flat struct (wire.h) that
 * the hook decodes and checks again.  The privileged hook reads the
 * files (it may have to: a bundle can be root's, mode 0600) and never
 * parses JSON.  A child that dies, for whatever reason, fails the one
 * container whose input it was parsing.
 *
 *   hook                             parser child
 *   state (stdin) bytes   ------->   state_parse
 *                         <-------   container id, bundle
 *   <bundle>/config.json bytes ->    config_parse
 *                         <-------   struct hook_input, or an error
 */
#ifndef SHIFTBIND_PRIVSEP_H
#define SHIFTBIND_PRIVSEP_H

#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include "error.h"

/*
 * The parser child's descriptors, which its filter names: requests in,
 * replies out, and stderr for abort()'s last words.
 */
#define PARSER_REQUEST_FD	STDIN_FILENO
#define PARSER_REPLY_FD		STDOUT_FILENO

/*
 * The system user the parser runs as when the hook is real root (the
 * install step creates it; shiftbind-hook(8)).  Its ids must be its
 * own: not root's, and not nobody's, which unrelated processes (and
 * containers' unmapped ids) run as.
 */
#define PARSER_USER		"shiftbind-parser"
#define PARSER_SHARED_UID	65534

/* argv[1] of the hook's binary started as the parser child. */
#define PARSER_MODE	"parser"

/*
 * CPU seconds the child may use: a 4 MiB config.json takes well under
 * one, even under an emulator.
 */
#define PARSER_CPU_SECONDS	30

/* Caps on a reply: a hook_input is paths, ids and two maps. */
#define PARSER_REPLY_MAX	(1024 * 1024)

struct hook_input;
struct wire_writer;

/*
 * privsep_open_self: the running binary (/proc/self/exe, O_PATH), opened
 * when the program starts, for parse_untrusted_input to re-execute.
 */
int privsep_open_self(int *exe, struct error *e);

/*
 * privsep_parser_dispatch: first thing in main() of every program that
 * calls parse_untrusted_input: when argv is the parser child's
 * (PARSER_MODE), run it; it never returns then.
 */
void privsep_parser_dispatch(int argc, char **argv);

/*
 * parse_untrusted_input: the state read from state_fd and the bundle's
 * config.json, parsed by the parser child (exe re-executed) into *in
 * (which the caller frees with hook_input_free, also on error: in->id is
 * set once the state named the container).  With self_test, the child
 * first tries what its filter must refuse and the answers are logged.
 */
int parse_untrusted_input(int exe, int state_fd, bool self_test,
			  struct hook_input *in, struct error *e);

/*
 * hook_input_encode, hook_input_decode: the parsed input on the wire.
 * Decoding checks what parsing guaranteed (absolute paths, plain extra
 * destinations, maps within the kernel's bounds, the caps of spec.h):
 * the privileged side relies on none of the child's checks.
 */
void hook_input_encode(const struct hook_input *in, struct wire_writer *w);
int hook_input_decode(const char *data, size_t len, struct hook_input *in,
		      struct error *e);

#endif /* SHIFTBIND_PRIVSEP_H */
