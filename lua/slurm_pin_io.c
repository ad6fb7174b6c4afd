/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurm_pin_io: how the site policy reads files from inside slurmctld.
 *
 * job_submit/lua runs with slurmctld's job lock held, so a read that blocks
 * stalls the whole controller: Lua's io.open waits forever on a FIFO, and
 * on a hung network file system. Here every file is
 *  - opened once, non-blocking and without following a final symbolic link,
 *    relative to its directory, opened once too;
 *  - trusted only as the engine's C readers trust the profile store: the
 *    directory writable by its owner alone, the file a regular file owned by
 *    root or by the directory's owner and writable by its owner alone, and
 *    no larger than the caller's bound;
 *  - read by a helper thread that the caller waits for at most `timeout_ms`.
 *    A read that does not finish in time is left to finish on its own (the
 *    thread is detached and frees what it holds) and the caller gets an
 *    error at once; until it finishes, further reads fail at once too, so
 *    one hung file system costs slurmctld one timeout, not one per job.
 *
 *   local io = require("slurm_pin_io")
 *   local text, err = io.read("/etc/slurm/slurm-pin-policy.lua", 16 * 2^20, 200)
 *   local head = io.read(store .. "/.index", 64 * 2^20, 200, 128)  -- its first 128 bytes
 *   local store = io.site_store("/etc/slurm/slurm.conf", 200)  -- "" when plugstack.conf gives none
 *
 * Lua 5.1 (what Debian's job_submit/lua embeds) to 5.4.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <lua.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "site_store.h"
#include "trusted_dir.h"

struct read_job {
  char *path;
  int site_store; /* path is slurm.conf: find the site's store (site_store.h) instead of reading */
  size_t max_bytes;
  size_t head; /* read at most this much (the file's first line, say) */
  /* Filled by the reader thread. */
  char *text;
  size_t size;
  char err[512];
  int done;      /* the thread has finished */
  int abandoned; /* the caller gave up: the thread frees the job */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
/* A read the caller gave up on that has not finished yet. */
static const struct read_job *hung;

static void job_free(struct read_job *j) {
  free(j->path);
  free(j->text);
  free(j);
}

/* The directory's owner alone may change it (trusted_dir.h's rule, the
 * directory's owner trusted as the store's is). */
static const char *untrusted_dir(const struct stat *st) { return trusted_stat_problem(st, S_IFDIR, st->st_uid); }

static const char *untrusted_file(const struct stat *st, const struct stat *dir, size_t max_bytes) {
  const char *why = trusted_stat_problem(st, S_IFREG, dir->st_uid);
  if (why) return why;
  if ((unsigned long long)st->st_size > max_bytes) return "is larger than the policy reads";
  return NULL;
}

/* Opens, checks and reads j->path; fills j->text or j->err. */
static void read_checked(struct read_job *j) {
  char *slash = strrchr(j->path, '/');
  const char *name = slash ? slash + 1 : j->path;
  char *dir_path = slash ? strndup(j->path, slash == j->path ? 1 : (size_t)(slash - j->path)) : strdup(".");
  int dir = dir_path ? open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  int fd = -1;
  struct stat dst, st;
  const char *why = NULL;
  if (!dir_path) why = "out of memory";
  else if (dir < 0 || fstat(dir, &dst) != 0) why = strerror(errno);
  else if ((why = untrusted_dir(&dst))) {
    snprintf(j->err, sizeof j->err, "%s %s", dir_path, why);
    why = NULL;
  } else if ((fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC)) < 0)
    why = errno == ELOOP ? "is a symbolic link" : strerror(errno);
  else if (fstat(fd, &st) != 0) why = strerror(errno);
  else why = untrusted_file(&st, &dst, j->max_bytes);
  if (!why && !j->err[0]) {
    size_t want = (size_t)st.st_size < j->head ? (size_t)st.st_size + 1 : j->head;
    j->text = malloc(want + 1);
    size_t got = 0;
    while (j->text && got < want) {
      ssize_t n = read(fd, j->text + got, want - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n < 0) why = strerror(errno);
        break;
      }
      got += (size_t)n;
    }
    if (!j->text) why = "out of memory";
    else if (got > (size_t)st.st_size) why = "changed while being read";
    j->size = got;
  }
  if (why && !j->err[0]) snprintf(j->err, sizeof j->err, "%s: %s", j->path, why);
  if (j->err[0]) {
    free(j->text);
    j->text = NULL;
  }
  if (fd >= 0) close(fd);
  if (dir >= 0) close(dir);
  free(dir_path);
}

/* The store= of the slurm_pin.so line of the plugstack.conf that slurm.conf
 * (j->path) names; "" when none gives one. */
static void find_site_store(struct read_job *j) {
  char plugstack[4096], store[4096];
  site_plugstack_path(j->path, plugstack, sizeof plugstack);
  if (site_store_from_plugstack(plugstack, store, sizeof store) < 0)
    snprintf(j->err, sizeof j->err, "%.400s: cannot read it: %s", plugstack, strerror(errno));
  else if (!(j->text = strdup(store)))
    snprintf(j->err, sizeof j->err, "out of memory");
  else
    j->size = strlen(store);
}

static void *reader(void *arg) {
  struct read_job *j = arg;
  if (j->site_store) find_site_store(j);
  else read_checked(j);
  pthread_mutex_lock(&lock);
  j->done = 1;
  if (j->abandoned) {
    if (hung == j) hung = NULL;
    job_free(j);
  } else {
    pthread_cond_broadcast(&finished);
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

static struct timespec deadline_in(long ms) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t); /* the clock a default condition variable waits on */
  t.tv_sec += ms / 1000;
  t.tv_nsec += (ms % 1000) * 1000000L;
  if (t.tv_nsec >= 1000000000L) t.tv_sec += 1, t.tv_nsec -= 1000000000L;
  return t;
}

/* Runs j on a reader thread and waits for it at most `timeout` ms: pushes
 * its text, or nil and an error. */
static int run_job(lua_State *L, struct read_job *j, lua_Number timeout) {
  const char *path = j->path;
  pthread_mutex_lock(&lock);
  if (hung) {
    pthread_mutex_unlock(&lock);
    lua_pushnil(L);
    lua_pushfstring(L, "%s: not read: an earlier read has not finished yet (a hung file system?)", path);
    job_free(j);
    return 2;
  }
  pthread_mutex_unlock(&lock);
  pthread_attr_t attr;
  pthread_t thread;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &attr, reader, j);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    job_free(j);
    lua_pushnil(L);
    lua_pushfstring(L, "%s: not read: cannot start a reader thread", path);
    return 2;
  }
  struct timespec until = deadline_in((long)timeout);
  pthread_mutex_lock(&lock);
  while (!j->done && pthread_cond_timedwait(&finished, &lock, &until) != ETIMEDOUT) {
  }
  if (!j->done) {
    j->abandoned = 1;
    hung = j;
    pthread_mutex_unlock(&lock);
    lua_pushnil(L);
    lua_pushfstring(L, "%s: not read within %d ms (a FIFO, a device or a hung file system?)", path, (int)timeout);
    return 2; /* j is the thread's to free now; path lived in it, so it is not used again */
  }
  pthread_mutex_unlock(&lock);
  int ok = j->text != NULL;
  if (ok) {
    lua_pushlstring(L, j->text, j->size);
  } else {
    lua_pushnil(L);
    lua_pushstring(L, j->err);
  }
  job_free(j);
  return ok ? 1 : 2;
}

static struct read_job *new_job(lua_State *L, const char *path) {
  struct read_job *j = calloc(1, sizeof *j);
  if (!j || !(j->path = strdup(path))) {
    free(j);
    luaL_error(L, "slurm_pin_io: out of memory");
    return NULL;
  }
  return j;
}

/* io.read(path, max_bytes, timeout_ms[, head]) -> text | nil, error: the
 * whole file, or its first `head` bytes. */
static int l_read(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  lua_Number max = luaL_checknumber(L, 2), timeout = luaL_optnumber(L, 3, 1000), head = luaL_optnumber(L, 4, max + 1);
  if (max < 0 || max > 1e12 || head < 0 || timeout < 0 || timeout > 60000)
    return luaL_error(L, "slurm_pin_io.read: bad bound");
  struct read_job *j = new_job(L, path);
  j->max_bytes = (size_t)max;
  j->head = (size_t)head;
  return run_job(L, j, timeout);
}

/* io.site_store(slurm_conf, timeout_ms) -> store | "" | nil, error: the
 * store= of the slurm_pin.so line in the plugstack.conf slurm.conf names
 * (site_store.h), looked up on a reader thread like a read. */
static int l_site_store(lua_State *L) {
  const char *conf = luaL_checkstring(L, 1);
  lua_Number timeout = luaL_optnumber(L, 2, 1000);
  if (timeout < 0 || timeout > 60000) return luaL_error(L, "slurm_pin_io.site_store: bad bound");
  struct read_job *j = new_job(L, conf);
  j->site_store = 1;
  return run_job(L, j, timeout);
}

static const luaL_Reg functions[] = {{"read", l_read}, {"site_store", l_site_store}, {NULL, NULL}};

/* A thread left reading must never find this code unmapped: when
 * job_submit/lua reloads its script it closes the Lua state, which would
 * dlclose this module. Keep it loaded for good. */
static void stay_loaded(void) {
  Dl_info self;
  if (dladdr((void *)&stay_loaded, &self) && self.dli_fname)
    dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

__attribute__((visibility("default"))) int luaopen_slurm_pin_io(lua_State *L) {
  stay_loaded();
#if LUA_VERSION_NUM >= 502
  luaL_newlib(L, functions);
#else
  lua_newtable(L);
  luaL_register(L, NULL, functions);
#endif
  return 1;
}
