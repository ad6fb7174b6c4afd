/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurmpin: a Valgrind tool recording, per thread (in creation order, the
 * main thread first) and per parallel region, the reads and writes to every
 * cache line, for the slurm-pin profiler (seed 001 section 5.2.2.1).
 *
 * Every memory access of the guest is counted: loads, stores, guarded loads
 * and stores, atomics (compare-and-swap and locked read-modify-writes: one
 * read and one write each), load-linked / store-conditional, and the memory
 * effects of dirty helpers. Code in the OpenMP runtime and the dynamic
 * loader is left out (its spinning and bookkeeping are not the application's
 * sharing); --exclude changes that.
 *
 * Valgrind runs one thread at a time, so per-thread tables need no locks.
 * An access is counted inline: at its site first, in lanes for a block of
 * lines that a helper moves into the table a block at a time (see
 * Pending), or, for a gather, in the table directly (count_in_table). At
 * exit every site's lanes go to the tables, the tables are summed here
 * (profiler/common/sharing_sums.h) and only the sums go to --out: no trace
 * of every line to write and read back.
 * --trace also writes the raw records, for debugging and re-analysis.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "slurm_pin/regions.h"

/* ---- options ------------------------------------------------------------ */

static const HChar *clo_out = "slurmpin.%p.sharing";
static const HChar *clo_trace = NULL;
static Long clo_progress = 5; /* seconds between progress lines, 0: none */
static UInt clo_line_size = 64;
static const HChar *clo_exclude = "libgomp,libomp,ld-linux,vgpreload_,libslurm_pin_ompt";
static Bool clo_precise_signals = False;
static UInt line_shift = 6;

static Bool sp_process_cmd_line_option(const HChar *arg) {
  const HChar *tmp;
  if VG_STR_CLO (arg, "--out", clo_out) {
  } else if VG_STR_CLO (arg, "--trace", clo_trace) {
  } else if VG_BINT_CLO (arg, "--progress", clo_progress, 0, 3600) {
  } else if VG_STR_CLO (arg, "--exclude", clo_exclude) {
  } else if VG_BOOL_CLO (arg, "--precise-signals", clo_precise_signals) {
  } else if VG_BINT_CLO (arg, "--line-size", clo_line_size, 8, 4096) {
  } else {
    (void)tmp;
    return False;
  }
  return True;
}

static void sp_print_usage(void) {
  VG_(printf)("    --out=FILE          where to write the sharing sums [slurmpin.%%p.sharing]\n"
              "    --trace=FILE        also write every thread's line counts (large)\n"
              "    --progress=SECONDS  a progress line on stderr this often, 0: none [5]\n"
              "    --line-size=N       cache line size in bytes, a power of two [64]\n"
              "    --exclude=A,B,...   shared objects whose code is not counted\n"
              "                        [libgomp,libomp,ld-linux,vgpreload_,libslurm_pin_ompt]\n"
              "    --precise-signals=yes  Valgrind's precise state at faults from the start,\n"
              "                        not only once the program handles SIGSEGV or SIGBUS [no]\n");
}

static void sp_print_debug_usage(void) { VG_(printf)("    (none)\n"); }

/* ---- regions ------------------------------------------------------------ */

#define MAX_REGIONS 4096
static HChar *region_names[MAX_REGIONS];
static HChar *region_sources[MAX_REGIONS]; /* "file.c:31" where debug info says, else NULL */
static UInt n_regions;
static UInt current_region; /* 0: serial code */

static UInt region_id(const HChar *name) {
  for (UInt i = 0; i < n_regions; ++i)
    if (VG_(strcmp)(region_names[i], name) == 0) return i;
  if (n_regions == MAX_REGIONS) return 0;
  region_names[n_regions] = VG_(strdup)("sp.region", name);
  return n_regions++;
}

/* ---- per-thread line tables ----------------------------------------------- */

#define LC_CALLOC(n, size) VG_(calloc)("sp.lines", n, size)
#define LC_FREE VG_(free)
#define SS_SORT VG_(ssort)
#define SS_SNPRINTF VG_(snprintf)
#include "sharing_sums.h"

/* Every site of the code that accesses memory inline (an instruction's load
 * or store) keeps, per thread, counts not yet in the table: per line of one
 * block of BLOCK_LINES aligned lines (its `key`), how many accesses the
 * site made to it. A loop's site
 * walks its array a block at a time (64 accesses of 8 bytes, 32 of 16), so
 * the inline code only compares the block with the site's and adds 1 to
 * the line's lane, in words that stay in L1; a helper moves the lanes into
 * the table when the site turns to another block, one page found for the
 * block's lines. Counting every such access in the table instead (its page
 * cache, inline: count_in_table) cost a hashed probe into counters far
 * bigger than the CPU's caches on each access: 2.9x Valgrind's own time on
 * NPB MG, where sites cost 2.3x (bench/profiler). A gather, whose site
 * would turn to another block nearly every time, still counts in the
 * table (NPB CG's x[col[k]]: 2.2x with sites, 1.5x in the table).
 *
 * The key is the block alone, so that the inline code compares the
 * address shifted with no more arithmetic (10% of the tool's time on
 * bench/profiler's pipeline against a key that also held the region and
 * the kind). The rest is known otherwise: a site's kind by its number
 * (even: reads, odd: writes: new_site), its region because every thread's
 * sites holding counts (its `dirty` list) go to the table whenever the
 * region changes (sites_flush_all), so what a site holds was counted in
 * the current region. SITE_EMPTY, above any block, marks a site holding
 * nothing: block 0 is an address a guest may touch (and fault on). */
#define SITE_EMPTY (~0ULL)
#define BLOCK_BITS 3
#define BLOCK_LINES (1u << BLOCK_BITS)
typedef struct {
  ULong key;
  uint64_t count[BLOCK_LINES]; /* 64 bits: a site spinning on one line never overflows */
} Pending;

/* Sites are numbered as code is instrumented, reads' even and writes' odd;
 * from SITES_MAX on, new sites share numbers of their kind (modulo
 * SITES_MAX): two sites sharing one only move counts to the table more
 * often, since a site that finds another's block there moves those counts
 * before it counts its own. So a thread's sites take at most 72 bytes x
 * SITES_MAX (1.1 MiB), and its dirty list 4 bytes x SITES_MAX. */
#define SITES_MAX (1u << 14)

typedef struct {
  LineCounts lines;
  Pending *pending; /* cap_sites of them */
  /* The sites not SITE_EMPTY, by number: each is listed once, when it
   * takes its first block after being empty (site_takes). */
  UInt *dirty;
  UInt n_dirty;
} Thread;

static Thread **threads; /* by creation index; a Thread never moves */
static UInt n_threads, cap_threads;
/* Counts of threads Valgrind runs before it reports their creation: made,
 * never written out. */
static Thread nobody;
static Thread *running = &nobody;
/* running->pending: the inline code loads it once per superblock (thread
 * switches end a superblock). */
static Pending *running_pending;

/* Every page cache slot's counters point somewhere valid, a slot that holds
 * no page here, so that count_in_table loads and stores them unguarded. */
static uint16_t no_page[LC_PAGE_LINES];

static void point_cache_at_no_page(LineCounts *t) {
  for (UInt k = 0; k < 2; ++k)
    for (UInt i = 0; i < LC_CACHE; ++i)
      if (!t->cache[k][i].counts) t->cache[k][i].counts = no_page;
}

static ULong n_sites[2]; /* numbered so far, of each kind */
static UInt cap_sites;   /* of every thread's pending and dirty arrays */

/* What site number `site` of thread t counted goes to its table, in the
 * current region, and the site is left empty (still listed dirty). */
static void pending_to_table(Thread *t, UInt site) {
  Pending *p = &t->pending[site];
  if (p->key == SITE_EMPTY) return;
  lc_count_lines(&t->lines, p->key << BLOCK_BITS, current_region, (int)(site & 1), p->count, BLOCK_LINES);
  for (UInt i = 0; i < BLOCK_LINES; ++i) p->count[i] = 0;
  p->key = SITE_EMPTY;
}

static void thread_sites_resize(Thread *t, UInt from, UInt to) {
  if (to == from) return;
  t->pending = VG_(realloc)("sp.sites", t->pending, to * sizeof(Pending));
  VG_(memset)(t->pending + from, 0, (to - from) * sizeof(Pending));
  for (UInt i = from; i < to; ++i) t->pending[i].key = SITE_EMPTY;
  t->dirty = VG_(realloc)("sp.sites", t->dirty, to * sizeof(UInt));
}

/* A number for a new site of the kind, every thread's arrays grown to hold
 * it. Called while instrumenting, when no instrumented code runs. */
static UInt new_site(Bool write) {
  UInt site = (UInt)(n_sites[write]++ % (SITES_MAX / 2)) * 2 + write;
  if (site >= cap_sites) {
    UInt cap = cap_sites ? cap_sites * 2 : 1024;
    for (UInt t = 0; t < n_threads; ++t) thread_sites_resize(threads[t], cap_sites, cap);
    thread_sites_resize(&nobody, cap_sites, cap);
    cap_sites = cap;
    running_pending = running->pending;
  }
  return site;
}

/* A site per access of a guest instruction, whichever translation holds
 * it: Valgrind unrolls a small loop into copies of its body in one
 * superblock (and chases jumps into copies of code), and copies with
 * sites of their own would each hold the block the loop walks, splitting
 * its accesses and moving lanes to the table several times as often (3x on
 * bench/profiler's pipeline). Key: the instruction's address, the access's
 * place among the instruction's (mod 16: two sharing a site is safe) and
 * its kind. */
typedef struct SiteOfAccess {
  struct SiteOfAccess *next;
  UWord key;
  UInt site;
} SiteOfAccess;
static VgHashTable *sites_by_access;
/* Past this many accesses remembered (about 64 MiB: a 24-byte node, the
 * allocator's header and the table's chain each), a new one gets a site
 * without: a guest that keeps generating code (a JIT) does not grow the
 * map without bound. */
#define SITES_REMEMBERED_MAX (1u << 20)
static UInt n_remembered;

static UInt site_of_access(Addr instruction, UInt nth, Bool write) {
  UWord key = (UWord)instruction << 5 | (UWord)(nth % 16) << 1 | (UWord)write;
  SiteOfAccess *n = VG_(HT_lookup)(sites_by_access, key);
  if (n) return n->site;
  if (n_remembered == SITES_REMEMBERED_MAX) return new_site(write);
  n_remembered++;
  n = VG_(malloc)("sp.sites", sizeof *n);
  n->key = key;
  n->site = new_site(write);
  VG_(HT_add_node)(sites_by_access, n);
  return n->site;
}

static void runs(Thread *t) {
  running = t;
  running_pending = t->pending;
}

/* Every count the thread's sites hold, into its table. */
static void pending_flush(Thread *t) {
  for (UInt i = 0; i < t->n_dirty; ++i) pending_to_table(t, t->dirty[i]);
  t->n_dirty = 0;
}

/* Before the region changes: what every thread's sites hold was counted in
 * the region ending. */
static void sites_flush_all(void) {
  for (UInt t = 0; t < n_threads; ++t) pending_flush(threads[t]);
  pending_flush(&nobody);
}

/* Where each thread came from, by creation index: its creator's index (-1
 * for the main thread) and its start routine's name (NULL: unknown). */
static Int *creator_of;
static HChar **start_of;
static Int *index_of_tid; /* Valgrind thread id -> creation index */
/* The start routine a thread announced (pthread_create wrapper) for the
 * thread it is creating, by Valgrind thread id. */
static HChar **pending_start;

static UInt new_thread_index(void) {
  if (n_threads == cap_threads) {
    cap_threads = cap_threads ? cap_threads * 2 : 64;
    threads = VG_(realloc)("sp.threads", threads, cap_threads * sizeof(Thread *));
    creator_of = VG_(realloc)("sp.origins", creator_of, cap_threads * sizeof(Int));
    start_of = VG_(realloc)("sp.origins", start_of, cap_threads * sizeof(HChar *));
  }
  creator_of[n_threads] = -1;
  start_of[n_threads] = NULL;
  threads[n_threads] = VG_(calloc)("sp.threads", 1, sizeof(Thread));
  point_cache_at_no_page(&threads[n_threads]->lines);
  thread_sites_resize(threads[n_threads], 0, cap_sites);
  return n_threads++;
}

static void sp_thread_created(ThreadId parent, ThreadId child) {
  UInt idx = new_thread_index();
  index_of_tid[child] = (Int)idx;
  if (parent != VG_INVALID_THREADID && index_of_tid[parent] >= 0) {
    creator_of[idx] = index_of_tid[parent];
    start_of[idx] = pending_start[parent];
    pending_start[parent] = NULL;
  } else {
    start_of[idx] = VG_(strdup)("sp.origins", "main");
  }
}

static void progress(void);

/* Valgrind switches threads here: point the inline code at the new one. */
static void sp_thread_runs(ThreadId tid, ULong blocks_done) {
  (void)blocks_done;
  progress();
  Int idx = index_of_tid[tid];
  runs(idx >= 0 ? threads[idx] : &nobody);
}

/* ---- what the instrumented code calls ------------------------------------ */

/* An access of `size` bytes at `a`, counted in the running thread's table
 * (unless count_in_table's inline code counted it already: lc_settle). */
static void record(Addr a, SizeT size, Bool write) {
  if (lc_settle(&running->lines, a, size, line_shift, current_region, write)) return;
  lc_count(&running->lines, a, size, line_shift, current_region, write);
}

/* The running thread's site takes a block. */
static void site_takes(UInt site, ULong block) {
  Pending *p = &running->pending[site];
  if (p->key == SITE_EMPTY) running->dirty[running->n_dirty++] = site;
  else pending_to_table(running, site);
  p->key = block;
}

/* settle's other cases, apart so that its common one (below) is a leaf
 * function that saves no registers. */
static __attribute__((noinline)) void settle_moving(UInt site, ULong line, ULong last) {
  Pending *p = &running->pending[site];
  if (p->key != line >> BLOCK_BITS) {
    p->count[line % BLOCK_LINES]--;
    site_takes(site, line >> BLOCK_BITS);
    p->count[line % BLOCK_LINES] = 1;
  }
  if (last == line) return;
  if (last >> BLOCK_BITS != line >> BLOCK_BITS) site_takes(site, last >> BLOCK_BITS);
  p->count[last % BLOCK_LINES]++;
}

/* count_at_site's fallback: the site's lanes held another block (or none),
 * or the access ends in the next line. The inline code already added this
 * access to the lane of its first line, in the block the site held: that
 * lane gives it back, the block goes to the table and the site takes this
 * one. An access across lines adds 1 to the next line too, whose block the
 * site takes if it is the next block. Most calls are an access across two
 * lines of the site's block (NPB MG's unaligned 16-byte loads: 204
 * million, against 134 million moves of a block), which only add to the
 * next line's lane. */
static inline void settle(UWord at, Addr a, SizeT size) {
  Pending *p = (Pending *)((HChar *)running_pending + at);
  ULong line = a >> line_shift, last = (a + size - 1) >> line_shift;
  if (LIKELY(p->key == last >> BLOCK_BITS && last != line && last >> BLOCK_BITS == line >> BLOCK_BITS)) {
    p->count[last % BLOCK_LINES]++;
    return;
  }
  settle_moving((UInt)(at / sizeof(Pending)), line, last);
}

static VG_REGPARM(2) void sp_read(Addr a, SizeT size) { record(a, size, False); }
static VG_REGPARM(2) void sp_write(Addr a, SizeT size) { record(a, size, True); }
static VG_REGPARM(2) void sp_modify(Addr a, SizeT size) {
  record(a, size, False);
  record(a, size, True);
}

/* The inline counts' fallbacks, one per usual size: record's for
 * count_in_table (one argument to set up, not two), settle's for
 * count_at_site (two, not three; the site's number says its kind). The
 * sizes, listed once for the helpers and for the table they are chosen
 * from (sized_helpers): */
#define SP_SIZES(X) X(1) X(2) X(4) X(8) X(16) X(32)
#define SP_SIZED(n)                                                     \
  static VG_REGPARM(1) void sp_read##n(Addr a) { record(a, n, False); } \
  static VG_REGPARM(1) void sp_write##n(Addr a) { record(a, n, True); } \
  static VG_REGPARM(2) void sp_settle##n(Addr a, UWord at) { settle(at, a, n); }
SP_SIZES(SP_SIZED)
#undef SP_SIZED
static VG_REGPARM(3) void sp_settle(Addr a, UWord at, SizeT size) { settle(at, a, size); }

/* ---- data the kernel copies ------------------------------------------------ */

/* read(), recv() and friends write a buffer on the calling thread's behalf,
 * write() and send() read one: invisible to instrumentation, yet they are
 * how an I/O pipeline's reader shares its data. Counted as that thread's
 * accesses. */
static void kernel_access(ThreadId tid, Addr a, SizeT size, Bool write) {
  Int idx = tid <= VG_N_THREADS ? index_of_tid[tid] : -1;
  if (idx < 0 || !size) return;
  lc_count(&threads[idx]->lines, a, size, line_shift, current_region, write);
}

static void sp_kernel_reads(CorePart part, ThreadId tid, const HChar *what, Addr a, SizeT size) {
  (void)what;
  if (part == Vg_CoreSysCall) kernel_access(tid, a, size, False);
}

static void sp_kernel_wrote(CorePart part, ThreadId tid, Addr a, SizeT size) {
  if (part == Vg_CoreSysCall) kernel_access(tid, a, size, True);
}

/* ---- progress ----------------------------------------------------------------- */

/* Accesses of the superblocks entered (one add per superblock, not per
 * access: an estimate, for the progress line only). */
static ULong accesses_seen;
static UInt started_ms, last_progress_ms;

static void progress(void) {
  UInt now = VG_(read_millisecond_timer)();
  if (!clo_progress || now - last_progress_ms < (UInt)clo_progress * 1000) return;
  last_progress_ms = now;
  ULong bytes = 0;
  for (UInt t = 0; t < n_threads; ++t) bytes += threads[t]->lines.bytes;
  HChar line[200];
  Int n = VG_(snprintf)(line, sizeof line, "slurm-pin: profiling: %u s, %llu M accesses, %u threads, %llu MiB of line tables\n",
                        (now - started_ms) / 1000, accesses_seen / 1000000, n_threads,
                        bytes >> 20);
  VG_(write)(2, line, n);
}

/* ---- instrumentation ------------------------------------------------------ */

typedef enum { READ, WRITE, MODIFY } Kind;

static void call_helper(IRSB *sb, IRExpr *addr, Int size, Kind kind, IRExpr *guard) {
  static void *const fns[] = {sp_read, sp_write, sp_modify};
  static const HChar *const names[] = {"sp_read", "sp_write", "sp_modify"};
  IRDirty *di = unsafeIRDirty_0_N(2, names[kind], VG_(fnptr_to_fnentry)(fns[kind]),
                                  mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)size)));
  if (guard) di->guard = guard;
  addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* The helpers taking the size as known, by size: record's for
 * count_in_table (reads, writes), settle's for count_at_site. */
typedef struct {
  Int size;
  void *record[2], *settle;
  const HChar *record_name[2], *settle_name;
} SizedHelpers;
#define SP_ENTRY(n) {n, {sp_read##n, sp_write##n}, sp_settle##n, {"sp_read" #n, "sp_write" #n}, "sp_settle" #n},
static const SizedHelpers sized_helpers[] = {SP_SIZES(SP_ENTRY)};
#undef SP_ENTRY

static const SizedHelpers *sized_helpers_of(Int size) {
  for (UInt i = 0; i < sizeof sized_helpers / sizeof *sized_helpers; ++i)
    if (sized_helpers[i].size == size) return &sized_helpers[i];
  return NULL;
}

/* A guarded call of settle for the site at byte offset `at`. */
static void call_settle(IRSB *sb, IRExpr *addr, UInt at, Int size, IRExpr *guard) {
  const SizedHelpers *h = sized_helpers_of(size);
  IRExpr *pending = mkIRExpr_HWord(at);
  IRDirty *di;
  if (h)
    di = unsafeIRDirty_0_N(2, h->settle_name, VG_(fnptr_to_fnentry)(h->settle), mkIRExprVec_2(addr, pending));
  else
    di = unsafeIRDirty_0_N(3, "sp_settle", VG_(fnptr_to_fnentry)(sp_settle),
                           mkIRExprVec_3(addr, pending, mkIRExpr_HWord((HWord)size)));
  di->guard = guard;
  addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* IR is flat: every intermediate value goes into a temporary. */
static IRExpr *tmp(IRSB *sb, IRType ty, IRExpr *e) {
  IRTemp t = newIRTemp(sb->tyenv, ty);
  addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
  return IRExpr_RdTmp(t);
}
static IRExpr *op64(IRSB *sb, IROp op, IRExpr *a, IRExpr *b) { return tmp(sb, Ity_I64, IRExpr_Binop(op, a, b)); }
static IRExpr *test(IRSB *sb, IROp op, IRExpr *a, IRExpr *b) { return tmp(sb, Ity_I1, IRExpr_Binop(op, a, b)); }
static IRExpr *load64(IRSB *sb, IRExpr *addr) { return tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, addr)); }
static IRExpr *u64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }

/* Loaded once per superblock (sp_instrument): the running thread's sites
 * and page cache, and the current region, change only between superblocks
 * (thread switches and client requests end one). */
static IRExpr *sb_pending;
static IRExpr *sb_cache, *sb_tag_base;      /* lc_tag(1, region) */
/* The guest instruction being instrumented, and its accesses so far. */
static Addr sb_instruction;
static UInt sb_nth;

/* A sized helper of record taking only the address, if that size has one. */
static Bool call_sized_helper(IRSB *sb, IRExpr *addr, Int size, Bool write, IRExpr *guard) {
  const SizedHelpers *h = sized_helpers_of(size);
  if (!h) return False;
  IRDirty *di = unsafeIRDirty_0_N(1, h->record_name[write], VG_(fnptr_to_fnentry)(h->record[write]), mkIRExprVec_1(addr));
  di->guard = guard;
  addStmtToIRSB(sb, IRStmt_Dirty(di));
  return True;
}

_Static_assert(offsetof(LineCounts, cache[LC_WRITES]) - offsetof(LineCounts, cache[LC_READS]) == LC_CACHE * sizeof(LcCached),
               "count_in_table finds the writes' cache at a fixed distance from the reads'");
_Static_assert(sizeof(LcCached) == 16, "count_in_table finds a cache slot by a shift of 4");

/* An access whose address came from memory (a gather: x[col[k]]) goes
 * straight to the table, since its site would turn to another block nearly
 * every time: the common case inline, the access in one line whose page is
 * in the running thread's page cache of the access's kind, dense (lc_line
 * in line_counts.h, written in IR). Then its counter is incremented with no
 * call; on a miss the helper counts it (filling the cache). The checks are
 * word arithmetic that is 0 when the access counts inline (the slot's tag
 * xor the page's, the access's first and last byte xor'ed above the line's
 * bits), compared once for the increment and once, with the counter's
 * guard bit, for the helper's guard. The counter is loaded and stored back
 * unguarded, plus 1 or plus 0: on a miss it is another page's counter, or
 * no_page's, written back unchanged, and Valgrind runs one guest thread at
 * a time, so nothing changes it in between. A count that reaches the guard
 * bit (LC_GUARD) calls the helper too, which moves it to the spill. */
static void count_in_table(IRSB *sb, IRExpr *addr, Int size, Bool write) {
  ULong line_size = 1ULL << line_shift;
  /* lc_tag: page + 1 plus the region's bits (no carry: pages stay below 2^40). */
  IRExpr *tag = op64(sb, Iop_Add64, op64(sb, Iop_Shr64, addr, IRExpr_Const(IRConst_U8(line_shift + LC_PAGE_BITS))),
                     sb_tag_base);
  /* lc_cache_slot, times the slot's size (16: the shift stops 4 short). */
  IRExpr *offset = op64(sb, Iop_And64,
                        op64(sb, Iop_Shr64, op64(sb, Iop_Mul64, tag, u64(LC_SLOT_MUL)),
                             IRExpr_Const(IRConst_U8(64 - LC_CACHE_BITS - 4))),
                        u64((LC_CACHE - 1) * sizeof(LcCached)));
  if (write) offset = op64(sb, Iop_Add64, offset, u64(LC_CACHE * sizeof(LcCached))); /* the writes' cache */
  IRExpr *slot = op64(sb, Iop_Add64, sb_cache, offset);
  IRExpr *missed = op64(sb, Iop_Xor64, load64(sb, op64(sb, Iop_Add64, slot, u64(offsetof(LcCached, tag)))), tag);
  if (size > 1) { /* the access ends in the next line */
    IRExpr *last = op64(sb, Iop_Add64, addr, u64((ULong)size - 1));
    missed = op64(sb, Iop_Or64, missed, op64(sb, Iop_And64, op64(sb, Iop_Xor64, addr, last), u64(~(line_size - 1))));
  }
  IRExpr *counts = load64(sb, op64(sb, Iop_Add64, slot, u64(offsetof(LcCached, counts))));
  /* The line's 16-bit counter of the access's kind. */
  IRExpr *word = op64(sb, Iop_Add64, counts,
                      op64(sb, Iop_And64, op64(sb, Iop_Shr64, addr, IRExpr_Const(IRConst_U8(line_shift - 1))),
                           u64((LC_PAGE_LINES - 1) * sizeof(uint16_t))));
  IRExpr *old = tmp(sb, Ity_I32, IRExpr_Unop(Iop_16Uto32, tmp(sb, Ity_I16, IRExpr_Load(Iend_LE, Ity_I16, word))));
  IRExpr *one = tmp(sb, Ity_I32, IRExpr_Unop(Iop_1Uto32, test(sb, Iop_CmpEQ64, missed, u64(0))));
  IRExpr *counted = tmp(sb, Ity_I32, IRExpr_Binop(Iop_Add32, old, one));
  addStmtToIRSB(sb, IRStmt_Store(Iend_LE, word, tmp(sb, Ity_I16, IRExpr_Unop(Iop_32to16, counted))));
  IRExpr *guard = tmp(sb, Ity_I32, IRExpr_Binop(Iop_And32, counted, IRExpr_Const(IRConst_U32(LC_GUARD))));
  IRExpr *not_inline = op64(sb, Iop_Or64, missed, tmp(sb, Ity_I64, IRExpr_Unop(Iop_32Uto64, guard)));
  IRExpr *slow = test(sb, Iop_CmpNE64, not_inline, u64(0));
  if (!call_sized_helper(sb, addr, size, write, slow)) call_helper(sb, addr, size, write ? WRITE : READ, slow);
}

/* One access counted at its site (see Pending): 1 added to its line's lane,
 * and when the site held another block, or the access ends in the next
 * line, a call of settle. Written for Valgrind's code generator, which
 * makes a set and a test of every 1-bit value: the checks are word
 * arithmetic that is 0 when the count stays at the site (the site's key
 * xor the access's block; the access's offset in its line plus its size
 * less 1, which reaches the line size's bit when it ends in the next
 * line), tested once for the call's guard. The lane is added to
 * unconditionally, before the call, which knows it. */
static void count_at_site(IRSB *sb, IRExpr *addr, Int size, Bool write) {
  /* add_access counted this access already: its place is sb_nth - 1. */
  ULong line_size = 1ULL << line_shift, at = (ULong)site_of_access(sb_instruction, sb_nth - 1, write) * sizeof(Pending);
  IRExpr *block = op64(sb, Iop_Shr64, addr, IRExpr_Const(IRConst_U8(line_shift + BLOCK_BITS)));
  IRExpr *missed = op64(sb, Iop_Xor64, load64(sb, op64(sb, Iop_Add64, sb_pending, u64(at))), block);
  if (size > 1) { /* (size <= line_size: add_access) */
    IRExpr *end = op64(sb, Iop_Add64, op64(sb, Iop_And64, addr, u64(line_size - 1)), u64((ULong)size - 1));
    missed = op64(sb, Iop_Or64, missed, op64(sb, Iop_And64, end, u64(line_size)));
  }
  /* The lane: the line within its block. Its address, Valgrind's
   * addressing mode (site, plus lane times 8), built twice, each used once,
   * so that both the load and the store take it whole. */
  IRExpr *lane = op64(sb, Iop_And64, op64(sb, Iop_Shr64, addr, IRExpr_Const(IRConst_U8(line_shift))),
                      u64(BLOCK_LINES - 1));
  IRExpr *at_lane[2];
  for (Int i = 0; i < 2; ++i)
    at_lane[i] = op64(sb, Iop_Add64, op64(sb, Iop_Add64, sb_pending, op64(sb, Iop_Shl64, lane, IRExpr_Const(IRConst_U8(3)))),
                      u64(at + offsetof(Pending, count)));
  addStmtToIRSB(sb, IRStmt_Store(Iend_LE, at_lane[1], op64(sb, Iop_Add64, load64(sb, at_lane[0]), u64(1))));
  call_settle(sb, addr, (UInt)at, size, test(sb, Iop_CmpNE64, missed, u64(0)));
}

static ULong sb_accesses; /* in the superblock being instrumented */

/* Temporaries of the superblock being instrumented whose value came from
 * memory, directly or through arithmetic (by temporary number). */
static Bool *from_memory;
static Int from_memory_cap;

static Bool is_from_memory(const IRExpr *e) { return e->tag == Iex_RdTmp && from_memory[e->Iex.RdTmp.tmp]; }

/* Marks what statement `st` defines from memory: a load's value, and any
 * value computed from one (an index loaded, then scaled and added). */
static void note_from_memory(const IRStmt *st) {
  if (st->tag == Ist_LoadG) from_memory[st->Ist.LoadG.details->dst] = True;
  if (st->tag != Ist_WrTmp) return;
  const IRExpr *e = st->Ist.WrTmp.data;
  Bool m = False;
  switch (e->tag) {
    case Iex_Load: m = True; break;
    case Iex_RdTmp: m = is_from_memory(e); break;
    case Iex_Unop: m = is_from_memory(e->Iex.Unop.arg); break;
    case Iex_Binop: m = is_from_memory(e->Iex.Binop.arg1) || is_from_memory(e->Iex.Binop.arg2); break;
    case Iex_Triop:
      m = is_from_memory(e->Iex.Triop.details->arg1) || is_from_memory(e->Iex.Triop.details->arg2) ||
          is_from_memory(e->Iex.Triop.details->arg3);
      break;
    case Iex_ITE: m = is_from_memory(e->Iex.ITE.iftrue) || is_from_memory(e->Iex.ITE.iffalse); break;
    default: break;
  }
  from_memory[st->Ist.WrTmp.tmp] = m;
}

/* Guarded guest accesses, and those wider than a line, go to the helper; a
 * gather to the table inline, the rest to their sites. */
static void add_access(IRSB *sb, IRExpr *addr, Int size, Kind kind, IRExpr *guard) {
  sb_accesses += kind == MODIFY ? 2 : 1;
  sb_nth++;
  if (guard || size <= 0 || (ULong)size > (1ULL << line_shift)) {
    call_helper(sb, addr, size, kind, guard);
    return;
  }
  void (*count)(IRSB *, IRExpr *, Int, Bool) = is_from_memory(addr) ? count_in_table : count_at_site;
  if (kind != WRITE) count(sb, addr, size, False);
  if (kind != READ) count(sb, addr, size, True);
}

/* Code of these objects is not the application's (comma-separated prefixes). */
static Bool excluded(Addr a) {
  DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
  const HChar *so = di ? VG_(DebugInfo_get_soname)(di) : NULL;
  if (!so) return False;
  for (const HChar *p = clo_exclude; *p;) {
    const HChar *end = VG_(strchr)(p, ',');
    SizeT n = end ? (SizeT)(end - p) : VG_(strlen)(p);
    if (n && VG_(strncmp)(so, p, n) == 0) return True;
    if (!end) break;
    p = end + 1;
  }
  return False;
}

static Bool same_atom(const IRExpr *a, const IRExpr *b) {
  if (a->tag == Iex_RdTmp && b->tag == Iex_RdTmp) return a->Iex.RdTmp.tmp == b->Iex.RdTmp.tmp;
  return a->tag == Iex_Const && b->tag == Iex_Const && eqIRConst(a->Iex.Const.con, b->Iex.Const.con);
}

/* A locked read-modify-write (lock add, xadd, xchg) becomes a load and then
 * a CAS expecting the loaded value: the load already counted its read, so
 * the CAS adds only the write, as the compiler backend counts an atomic. A
 * lone CAS (lock cmpxchg) is a read and a write. */
static Bool read_before_cas(const IRSB *in, Int at, const IRCAS *cas) {
  if (cas->expdLo->tag != Iex_RdTmp) return False;
  IRTemp expected = cas->expdLo->Iex.RdTmp.tmp;
  for (Int i = at - 1; i >= 0; --i) {
    const IRStmt *st = in->stmts[i];
    if (st && st->tag == Ist_WrTmp && st->Ist.WrTmp.tmp == expected) {
      const IRExpr *e = st->Ist.WrTmp.data;
      return e->tag == Iex_Load && same_atom(e->Iex.Load.addr, cas->addr);
    }
  }
  return False;
}

static void instrument_stmt(IRSB *out, const IRSB *in, Int at) {
  IRTypeEnv *env = in->tyenv;
  IRStmt *st = in->stmts[at];
  switch (st->tag) {
    case Ist_WrTmp: {
      IRExpr *e = st->Ist.WrTmp.data;
      if (e->tag == Iex_Load) add_access(out, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), READ, NULL);
      break;
    }
    case Ist_Store:
      add_access(out, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(env, st->Ist.Store.data)), WRITE, NULL);
      break;
    case Ist_StoreG: {
      IRStoreG *sg = st->Ist.StoreG.details;
      add_access(out, sg->addr, sizeofIRType(typeOfIRExpr(env, sg->data)), WRITE, sg->guard);
      break;
    }
    case Ist_LoadG: {
      IRLoadG *lg = st->Ist.LoadG.details;
      IRType wide = Ity_INVALID, narrow = Ity_INVALID;
      typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
      add_access(out, lg->addr, sizeofIRType(narrow), READ, lg->guard);
      break;
    }
    case Ist_CAS: {
      IRCAS *cas = st->Ist.CAS.details;
      Int size = sizeofIRType(typeOfIRExpr(env, cas->dataLo)) * (cas->dataHi ? 2 : 1);
      add_access(out, cas->addr, size, read_before_cas(in, at, cas) ? WRITE : MODIFY, NULL);
      break;
    }
    case Ist_LLSC:
      if (st->Ist.LLSC.storedata == NULL)
        add_access(out, st->Ist.LLSC.addr, sizeofIRType(typeOfIRTemp(env, st->Ist.LLSC.result)), READ, NULL);
      else
        add_access(out, st->Ist.LLSC.addr, sizeofIRType(typeOfIRExpr(env, st->Ist.LLSC.storedata)), WRITE, NULL);
      break;
    case Ist_Dirty: {
      IRDirty *d = st->Ist.Dirty.details;
      if (d->mFx != Ifx_None && d->mAddr)
        add_access(out, d->mAddr, d->mSize, d->mFx == Ifx_Read ? READ : d->mFx == Ifx_Write ? WRITE : MODIFY,
                   NULL);
      break;
    }
    default:
      break;
  }
}

static IRSB *sp_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                           const VexGuestExtents *vge, const VexArchInfo *arch, IRType gWordTy,
                           IRType hWordTy) {
  (void)closure, (void)layout, (void)arch, (void)gWordTy, (void)hWordTy;
  if (excluded((Addr)vge->base[0])) return in;
  IRSB *out = deepCopyIRSBExceptStmts(in);
  sb_accesses = 0;
  sb_pending = load64(out, mkIRExpr_HWord((HWord)&running_pending));
  IRExpr *region = tmp(out, Ity_I64, IRExpr_Unop(Iop_32Uto64, tmp(out, Ity_I32, IRExpr_Load(Iend_LE, Ity_I32,
      mkIRExpr_HWord((HWord)&current_region)))));
  sb_cache = op64(out, Iop_Add64, load64(out, mkIRExpr_HWord((HWord)&running)),
                  u64(offsetof(Thread, lines) + offsetof(LineCounts, cache)));
  sb_tag_base = op64(out, Iop_Add64, op64(out, Iop_Shl64, region, IRExpr_Const(IRConst_U8(40))), u64(1));
  if (in->tyenv->types_used > from_memory_cap) {
    from_memory_cap = in->tyenv->types_used * 2;
    from_memory = VG_(realloc)("sp.instrument", from_memory, from_memory_cap * sizeof(Bool));
  }
  VG_(memset)(from_memory, 0, in->tyenv->types_used * sizeof(Bool));
  for (Int i = 0; i < in->stmts_used; ++i) {
    IRStmt *st = in->stmts[i];
    if (!st || st->tag == Ist_NoOp) continue;
    if (st->tag == Ist_IMark) sb_instruction = (Addr)st->Ist.IMark.addr, sb_nth = 0;
    instrument_stmt(out, in, i);
    note_from_memory(st);
    addStmtToIRSB(out, st);
  }
  if (sb_accesses) { /* at the end: a side exit skips it, fine for an estimate */
    IRExpr *at = mkIRExpr_HWord((HWord)&accesses_seen);
    addStmtToIRSB(out, IRStmt_Store(Iend_LE, at, op64(out, Iop_Add64, load64(out, at), u64(sb_accesses))));
  }
  return out;
}

/* ---- precise signals ------------------------------------------------------ */

/* Valgrind keeps the guest's instruction and frame pointers exact at every
 * memory access (its default, --vex-iropt-register-updates=
 * unwindregs-at-mem-access), so that a fault reaches a handler with them
 * exact. Those stores put a guest-state slot beside the host stack slot
 * Valgrind's code passes some operands through, and on AMD Zen, at some
 * install paths of the tool, one thread ran 3x slower (docs/profiler.md).
 * A program that handles neither SIGSEGV nor SIGBUS dies of a fault
 * whatever the state says, so until the program installs a handler for
 * either the tool has code translated with only the stack pointer exact
 * (sp-at-mem-access); from then on with Valgrind's precision, every
 * translation made before discarded, so that no code runs imprecise while
 * a handler could resume it. --precise-signals=yes, or any
 * --vex-iropt-register-updates given, keeps Valgrind's level throughout.
 * Not in the tool interface: the core's VEX options (copied into VEX at
 * its first translation) and VEX's own, read at every translation; and
 * the core's discard, which its munmap wrapper calls from the same place
 * (after a system call, no translated code running). */
extern VexControl VG_(clo_vex_control);
extern VexControl vex_control;
extern void VG_(discard_translations)(Addr start, ULong range, const HChar *who);

static Bool imprecise; /* code is translated with only the stack pointer exact at memory accesses */

static void set_register_updates(VexRegisterUpdates level) {
  VG_(clo_vex_control).iropt_register_updates_default = level;
  vex_control.iropt_register_updates_default = level;
}

static void start_imprecise(void) {
  if (clo_precise_signals || VG_(clo_vex_control).iropt_register_updates_default != VexRegUpdUnwindregsAtMemAccess)
    return;
  set_register_updates(VexRegUpdSpAtMemAccess);
  imprecise = True;
}

/* A handler for SIGSEGV or SIGBUS installed (the action's first word is
 * its handler, neither SIG_DFL nor SIG_IGN): precise from now on. */
static Bool installs_fault_handler(const UWord *args, UInt n_args) {
  if (n_args < 2 || (args[0] != VKI_SIGSEGV && args[0] != VKI_SIGBUS) || !args[1]) return False;
  if (!VG_(am_is_valid_for_client)(args[1], sizeof(UWord), VKI_PROT_READ)) return False;
  UWord handler = *(const UWord *)args[1];
  return handler != (UWord)VKI_SIG_DFL && handler != (UWord)VKI_SIG_IGN;
}

static void sp_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt n_args) {
  (void)tid, (void)sysno, (void)args, (void)n_args;
}

static void sp_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt n_args, SysRes res) {
  (void)tid;
  if (!imprecise || sysno != __NR_rt_sigaction || sr_isError(res) || !installs_fault_handler(args, n_args)) return;
  imprecise = False;
  set_register_updates(VexRegUpdUnwindregsAtMemAccess);
  VG_(discard_translations)(0, ~0ULL, "slurmpin: the program handles faults");
}

/* ---- client requests (regions) ------------------------------------------- */

/* Where a region is in the source, from debug info: the line of a function's
 * entry (GCC's outlined region), or of the call before a return address
 * (an OMPT call site). */
static void note_source(UInt region, Addr code, Bool return_address) {
  const HChar *file = NULL, *dir = NULL;
  UInt line = 0;
  if (region == 0 || region_sources[region]) return;
  if (!VG_(get_filename_linenum)(VG_(current_DiEpoch)(), return_address ? code - 1 : code, &file, &dir, &line))
    return;
  HChar buf[256];
  VG_(snprintf)(buf, sizeof buf, "%s:%u", file, line);
  for (HChar *c = buf; *c; ++c)
    if (*c == ' ' || *c == '\t') *c = '_';
  region_sources[region] = VG_(strdup)("sp.region", buf);
}

/* What the sites hold was counted in the region ending (sites_flush_all). */
static void enter_region(UInt region) {
  if (region == current_region) return;
  sites_flush_all();
  current_region = region;
}

static Bool sp_client_request(ThreadId tid, UWord *args, UWord *ret) {
  if (!VG_IS_TOOL_USERREQ('S', 'P', args[0])) return False;
  const HChar *name = NULL;
  HChar buf[64];
  switch (args[0]) {
    case SLURM_PIN_USERREQ_REGION_BEGIN_CODE:
      /* An outlined function's entry gives its name ("main._omp_fn.1"); a
       * return address inside a function gives name+offset, stable for a
       * given binary. */
      if (!VG_(get_fnname_w_offset)(VG_(current_DiEpoch)(), (Addr)args[1], &name)) {
        VG_(snprintf)(buf, sizeof buf, "0x%lx", args[1]);
        name = buf;
      }
      enter_region(region_id(name));
      note_source(current_region, (Addr)args[1], VG_(strchr)(name, '+') != NULL);
      break;
    case SLURM_PIN_USERREQ_REGION_BEGIN_NAME:
      enter_region(region_id(args[1] ? (const HChar *)args[1] : "unnamed"));
      break;
    case SLURM_PIN_USERREQ_REGION_END:
      enter_region(0);
      break;
    case SLURM_PIN_USERREQ_THREAD_START:
      /* Named now: the routine's object may be unloaded by the end. A
       * routine with no symbol (a runtime's static start function, in a
       * stripped library) is named by its object and offset. */
      if (!VG_(get_fnname)(VG_(current_DiEpoch)(), (Addr)args[1], &name)) {
        DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), (Addr)args[1]);
        const HChar *so = di ? VG_(DebugInfo_get_soname)(di) : NULL;
        if (so) VG_(snprintf)(buf, sizeof buf, "%s+0x%lx", so, args[1] - VG_(DebugInfo_get_text_avma)(di));
        else VG_(snprintf)(buf, sizeof buf, "0x%lx", args[1]);
        name = buf;
      }
      if (pending_start[tid]) VG_(free)(pending_start[tid]);
      pending_start[tid] = VG_(strdup)("sp.origins", name);
      break;
    default:
      return False;
  }
  *ret = 0;
  return True;
}

/* ---- start and finish ------------------------------------------------------ */

static void sp_post_clo_init(void) {
  if (clo_line_size & (clo_line_size - 1)) VG_(fmsg_bad_option)("--line-size", "must be a power of two\n");
  for (line_shift = 0; (1u << line_shift) < clo_line_size; ++line_shift) {
  }
  index_of_tid = VG_(malloc)("sp.tids", (VG_N_THREADS + 1) * sizeof(Int));
  for (UInt i = 0; i <= VG_N_THREADS; ++i) index_of_tid[i] = -1;
  pending_start = VG_(calloc)("sp.origins", VG_N_THREADS + 1, sizeof(HChar *));
  started_ms = last_progress_ms = VG_(read_millisecond_timer)();
  /* Valgrind reports the main thread's creation too, so indices follow
   * creation order with the main thread first. */
  region_id("serial");
  point_cache_at_no_page(&nobody.lines);
  sites_by_access = VG_(HT_construct)("sp.sites");
  start_imprecise();
}

typedef struct {
  Int fd;
  HChar buf[1 << 16];
  Int used;
  UInt thread; /* whose records are being written */
} Out;

static void out_flush(Out *o) {
  if (o->used) VG_(write)(o->fd, o->buf, o->used);
  o->used = 0;
}

static void out_line(Out *o, const HChar *line) {
  Int n = (Int)VG_(strlen)(line);
  if (o->used + n > (Int)sizeof o->buf) out_flush(o);
  VG_(memcpy)(o->buf + o->used, line, n);
  o->used += n;
}

static void out_record(void *ctx, uint64_t line, uint32_t region, uint64_t reads, uint64_t writes) {
  Out *o = ctx;
  HChar text[128];
  VG_(snprintf)(text, sizeof text, "a %u %u %llu %llu %llu\n", o->thread, (UInt)region, (ULong)line, (ULong)reads,
                (ULong)writes);
  out_line(o, text);
}

static void out_text(void *ctx, const HChar *text) { out_line(ctx, text); }

/* Header shared by the sums and the raw trace (docs/profiler.md). */
static void out_header(Out *o, const HChar *magic) {
  HChar line[512];
  VG_(snprintf)(line, sizeof line, "%s 1\ntool valgrind %s\nline_size %u\nthreads %u\n", magic, VERSION,
                clo_line_size, n_threads);
  out_line(o, line);
  for (UInt t = 0; t < n_threads; ++t) {
    if (creator_of[t] < 0) VG_(snprintf)(line, sizeof line, "thread %u - %s\n", t, start_of[t] ? start_of[t] : "-");
    else VG_(snprintf)(line, sizeof line, "thread %u %d %s\n", t, creator_of[t], start_of[t] ? start_of[t] : "-");
    out_line(o, line);
  }
  for (UInt i = 0; i < n_regions; ++i) {
    VG_(snprintf)(line, sizeof line, "region %u %s\n", i, region_names[i]);
    out_line(o, line);
    if (region_sources[i]) {
      VG_(snprintf)(line, sizeof line, "source %u %s\n", i, region_sources[i]);
      out_line(o, line);
    }
  }
}

static Bool out_open(Out *o, const HChar *option, const HChar *value) {
  HChar *path = VG_(expand_file_name)(option, value);
  SysRes r = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0644);
  if (sr_isError(r)) {
    VG_(umsg)("slurmpin: cannot write %s\n", path);
    return False;
  }
  o->fd = (Int)sr_Res(r);
  o->used = 0;
  return True;
}

static void out_close(Out *o) {
  out_line(o, "end\n"); /* a complete file (docs/profiler.md) */
  out_flush(o);
  VG_(close)(o->fd);
}

static void sp_fini(Int exitcode) {
  (void)exitcode;
  static Out o;
  for (UInt t = 0; t < n_threads; ++t) pending_flush(threads[t]);
  if (clo_trace && out_open(&o, "--trace", clo_trace)) {
    out_header(&o, "slurm-pin-trace");
    for (UInt t = 0; t < n_threads; ++t) {
      o.thread = t;
      lc_for_each(&threads[t]->lines, out_record, &o);
    }
    out_close(&o);
  }
  if (!out_open(&o, "--out", clo_out)) return;
  LineCounts **of = VG_(calloc)("sp.sums", n_threads ? n_threads : 1, sizeof(LineCounts *));
  for (UInt t = 0; t < n_threads; ++t) of[t] = &threads[t]->lines;
  SharingSums sums;
  VG_(memset)(&sums, 0, sizeof sums);
  ss_compute(&sums, of, n_threads, n_regions);
  out_header(&o, "slurm-pin-sharing");
  ss_write(&sums, out_text, &o);
  out_close(&o);
}

static void sp_pre_clo_init(void) {
  VG_(details_name)("slurmpin");
  VG_(details_version)(NULL);
  VG_(details_description)("per-thread cache-line sharing for slurm-pin");
  VG_(details_copyright_author)("slurm-pin developers");
  VG_(details_bug_reports_to)("the slurm-pin issue tracker");
  VG_(details_avg_translation_sizeB)(400);
  VG_(basic_tool_funcs)(sp_post_clo_init, sp_instrument, sp_fini);
  VG_(needs_command_line_options)(sp_process_cmd_line_option, sp_print_usage, sp_print_debug_usage);
  VG_(needs_client_requests)(sp_client_request);
  VG_(track_pre_thread_ll_create)(sp_thread_created);
  VG_(track_start_client_code)(sp_thread_runs);
  VG_(track_pre_mem_read)(sp_kernel_reads);
  VG_(track_post_mem_write)(sp_kernel_wrote);
  VG_(needs_syscall_wrapper)(sp_pre_syscall, sp_post_syscall);
}

VG_DETERMINE_INTERFACE_VERSION(sp_pre_clo_init)
