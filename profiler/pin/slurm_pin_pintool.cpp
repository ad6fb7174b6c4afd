// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slurm-pin's Intel Pin backend: the same records as the valgrind and
 * compiler backends (thread in creation order, region, line, reads, writes).
 * Built only where a Pin kit exists (PIN_ROOT); Pin cannot be obtained on the
 * machines slurm-pin is tested on, so this tool is untested there
 * (docs/profiler.md).
 *
 *   $PIN_ROOT/pin -t slurm_pin_pintool.so -o TRACE [-line-size 64] -- PROGRAM ARGS
 */
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "pin.H"

namespace {

KNOB<std::string> knob_out(KNOB_MODE_WRITEONCE, "pintool", "o", "slurmpin.trace", "trace file");
KNOB<UINT32> knob_line_size(KNOB_MODE_WRITEONCE, "pintool", "line-size", "64", "cache line size in bytes");
KNOB<std::string> knob_exclude(KNOB_MODE_WRITEONCE, "pintool", "exclude", "libgomp,libomp,ld-linux",
                               "images whose code is not counted (comma-separated prefixes)");

void* calloc_or_die(size_t n, size_t size) {
  void* p = calloc(n, size);
  if (!p) {
    std::cerr << "slurm-pin: error: the profiler ran out of memory" << std::endl;
    PIN_ExitProcess(1);
  }
  return p;
}
#define LC_CALLOC calloc_or_die
#define LC_FREE free
#include "line_counts.h"  // the table every backend counts into

// By Pin thread id (creation order, the main thread 0). A fixed array: the
// threads read it in parallel while new threads are added.
const UINT32 kMaxThreads = 4096;
LineCounts* tables[kMaxThreads];
volatile UINT32 n_threads = 0;

PIN_LOCK lock;
std::vector<std::string> regions{"serial"};
volatile UINT32 current_region = 0;
UINT32 line_shift = 6;

void record(THREADID tid, ADDRINT addr, UINT32 size, bool write) {
  if (tid >= kMaxThreads || !tables[tid]) return;
  lc_count(tables[tid], addr, size, line_shift, current_region, write);
}

VOID on_read(THREADID tid, ADDRINT addr, UINT32 size) { record(tid, addr, size, false); }
VOID on_write(THREADID tid, ADDRINT addr, UINT32 size) { record(tid, addr, size, true); }

UINT32 region_id(const std::string& name) {
  PIN_GetLock(&lock, 0);
  UINT32 id = 0;
  for (UINT32 i = 1; i < regions.size() && !id; ++i)
    if (regions[i] == name) id = i;
  if (!id) {
    id = static_cast<UINT32>(regions.size());
    regions.push_back(name);
  }
  PIN_ReleaseLock(&lock);
  return id;
}

// A region's name as every part of slurm-pin makes it (common/region_name.c,
// which the thread runtime looks regions up by): "fn" for a function's
// entry (GOMP_parallel's outlined function), "fn+OFFSET" (decimal) inside
// one (an OMPT call site), the address in hex when no routine covers it.
std::string name_of(ADDRINT code) {
  PIN_LockClient();
  RTN rtn = RTN_FindByAddress(code);
  std::string name = RTN_Valid(rtn) ? RTN_Name(rtn) : "";
  ADDRINT start = RTN_Valid(rtn) ? RTN_Address(rtn) : code;
  PIN_UnlockClient();
  if (name.empty()) return "0x" + hexstr(code).substr(2);
  return code == start ? name : name + "+" + decstr(code - start);
}

VOID region_begin(ADDRINT code) { current_region = region_id(name_of(code)); }
VOID region_end() { current_region = 0; }
VOID ompt_region(ADDRINT code, INT32 begin) {
  if (begin) region_begin(code);
  else region_end();
}

bool excluded(IMG img) {
  if (!IMG_Valid(img)) return false;
  std::string name = IMG_Name(img);
  name = name.substr(name.rfind('/') + 1);
  std::string list = knob_exclude.Value();
  for (size_t i = 0; i <= list.size();) {
    size_t j = list.find(',', i);
    if (j == std::string::npos) j = list.size();
    std::string prefix = list.substr(i, j - i);
    if (!prefix.empty() && name.compare(0, prefix.size(), prefix) == 0) return true;
    i = j + 1;
  }
  return false;
}

VOID instruction(INS ins, VOID*) {
  if (excluded(IMG_FindByAddress(INS_Address(ins)))) return;
  UINT32 ops = INS_MemoryOperandCount(ins);
  for (UINT32 op = 0; op < ops; ++op) {
    UINT32 size = INS_MemoryOperandSize(ins, op);
    if (INS_MemoryOperandIsRead(ins, op))
      INS_InsertPredicatedCall(ins, IPOINT_BEFORE, AFUNPTR(on_read), IARG_THREAD_ID, IARG_MEMORYOP_EA, op,
                               IARG_UINT32, size, IARG_END);
    if (INS_MemoryOperandIsWritten(ins, op))
      INS_InsertPredicatedCall(ins, IPOINT_BEFORE, AFUNPTR(on_write), IARG_THREAD_ID, IARG_MEMORYOP_EA, op,
                               IARG_UINT32, size, IARG_END);
  }
}

// Regions: GCC's GOMP_parallel (libgomp, or libomp's GOMP ABI) by its
// outlined function, and the OMPT tool's marker for LLVM libomp programs.
VOID image(IMG img, VOID*) {
  RTN rtn = RTN_FindByName(img, "GOMP_parallel");
  if (RTN_Valid(rtn)) {
    RTN_Open(rtn);
    RTN_InsertCall(rtn, IPOINT_BEFORE, AFUNPTR(region_begin), IARG_FUNCARG_ENTRYPOINT_VALUE, 0, IARG_END);
    RTN_InsertCall(rtn, IPOINT_AFTER, AFUNPTR(region_end), IARG_END);
    RTN_Close(rtn);
  }
  rtn = RTN_FindByName(img, "slurm_pin_ompt_region");
  if (RTN_Valid(rtn)) {
    RTN_Open(rtn);
    RTN_InsertCall(rtn, IPOINT_BEFORE, AFUNPTR(ompt_region), IARG_FUNCARG_ENTRYPOINT_VALUE, 0,
                   IARG_FUNCARG_ENTRYPOINT_VALUE, 1, IARG_END);
    RTN_Close(rtn);
  }
}

VOID thread_start(THREADID tid, CONTEXT*, INT32, VOID*) {
  if (tid >= kMaxThreads) return;
  tables[tid] = static_cast<LineCounts*>(calloc_or_die(1, sizeof(LineCounts)));
  PIN_GetLock(&lock, tid + 1);
  if (n_threads <= tid) n_threads = tid + 1;
  PIN_ReleaseLock(&lock);
}

struct Out {
  std::ofstream* file;
  UINT32 thread;
};

void write_record(void* ctx, uint64_t line, uint32_t region, uint64_t reads, uint64_t writes) {
  Out* o = static_cast<Out*>(ctx);
  *o->file << "a " << o->thread << " " << region << " " << line << " " << reads << " " << writes << "\n";
}

VOID fini(INT32, VOID*) {
  std::ofstream out(knob_out.Value().c_str());
  out << "slurm-pin-trace 1\ntool pin " << PIN_PRODUCT_VERSION_MAJOR << "." << PIN_PRODUCT_VERSION_MINOR
      << "\nline_size " << knob_line_size.Value() << "\nthreads " << n_threads << "\n";
  for (size_t r = 0; r < regions.size(); ++r) out << "region " << r << " " << regions[r] << "\n";
  for (UINT32 t = 0; t < n_threads; ++t)
    if (tables[t]) {
      Out o{&out, t};
      lc_for_each(tables[t], write_record, &o);
    }
  out << "end\n";  // a complete trace (see docs/profiler.md)
}

}  // namespace

int main(int argc, char* argv[]) {
  PIN_InitSymbols();
  if (PIN_Init(argc, argv)) {
    std::cerr << KNOB_BASE::StringKnobSummary() << std::endl;
    return 1;
  }
  for (line_shift = 0; (1u << line_shift) < knob_line_size.Value(); ++line_shift) {
  }
  PIN_InitLock(&lock);
  IMG_AddInstrumentFunction(image, nullptr);
  INS_AddInstrumentFunction(instruction, nullptr);
  PIN_AddThreadStartFunction(thread_start, nullptr);
  PIN_AddFiniFunction(fini, nullptr);
  PIN_StartProgram();
  return 0;
}
