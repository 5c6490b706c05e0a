/* Helpers shared by files.c and paths.c. Not part of the ABI. Kept out of
 * posix_internal.h so that the data-file writer does not depend on them. */
#ifndef CAIRN_POSIX_FILES_H
#define CAIRN_POSIX_FILES_H

#include "posix_internal.h"

/* Turns O_DIRECT on for an open descriptor. Returns 0 or the errno; EINVAL means the file system
 * refuses direct I/O. Done with F_SETFL rather than at open(2) because open(O_CREAT|O_DIRECT)
 * creates the file before the file system gets to refuse O_DIRECT, so retrying an O_EXCL open
 * without O_DIRECT would then fail with EEXIST on a file we created ourselves (and a failed probe
 * would leave its file behind). */
CAIRN_HIDDEN int cairn_posix_enable_direct(int fd);

#endif
