/*
 * Helpers of the tests that run servers on loopback (tests/uring,
 * tests/handshaked): listen, dial with a receive timeout, count a
 * process's descriptors, and print one check line ("ok - ..." or
 * "FAIL - ...").
 */
#ifndef HS_TESTS_LOOPBACK_H
#define HS_TESTS_LOOPBACK_H

#include <sys/types.h>

/* A listening TCP socket on 127.0.0.1, a free port (in *port); -1 on error. */
int lo_listen(unsigned *port);
/* A socket connected to 127.0.0.1:port, SO_RCVTIMEO/SO_SNDTIMEO timeout_s; -1 on error. */
int lo_dial(unsigned port, unsigned timeout_s);
/* Open descriptors of process pid (/proc/PID/fd), -1 if unreadable. */
long lo_count_fds(pid_t pid);
/* The number after "field:" in /proc/PID/status ("VmRSS": KiB, "Threads"), -1 if absent. */
long lo_proc_status(pid_t pid, const char *field);
/* Print "ok - ..." or "FAIL - ...", counting failures in lo_failures. */
void lo_check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
extern int lo_failures;

#endif
