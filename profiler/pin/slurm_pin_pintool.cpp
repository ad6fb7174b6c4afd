/*
 * slurm-pin's Intel Pin backend: the same records as the valgrind and
 * compiler backends (thread in creation order, region, line, reads, writes).
 * Built only where a Pin kit exists (PIN_ROOT); Pin cannot be obtained on the
 * machines slurm-pin is tested on, so this tool is untested there
 * (docs/profiler.md).
 *
 *   $PIN_ROOT/pin -t slurm_pin_pintool.so -o TRACE [-line-size 64] -- PROGRAM ARGS
 */
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "pin.H"

namespace {

KNOB<std::string> knob_out(KNOB_MODE_WRITEONCE, "pintool", "o", "slurmpin.trace", "trace file");
KNOB<UINT32> knob_line_size(KNOB_MODE_WRITEONCE, "pintool", "line-size", "64", "cache line size in bytes");
KNOB<std::string> knob_exclude(KNOB_MODE_WRITEONCE, "pintool", "exclude", "libgomp,libomp,ld-linux",
                               "images whose code is not counted (comma-separated prefixes)");

struct Key {
  UINT64 line;
  UINT32 region;
  bool operator==(const Key& o) const { return line == o.line && region == o.region; }
};
struct KeyHash {
  size_t operator()(const Key& k) const { return (k.line ^ (UINT64(k.region) << 40)) * 0x9E3779B97F4A7C15ULL; }
};
struct Counts {
  UINT64 reads = 0, writes = 0;
};
using Table = std::unordered_map<Key, Counts, KeyHash>;

PIN_LOCK lock;
std::vector<Table*> tables;  // by Pin thread id: creation order, the main thread 0
std::vector<std::string> regions{"serial"};
volatile UINT32 current_region = 0;
UINT32 line_shift = 6;

void record(THREADID tid, ADDRINT addr, UINT32 size, bool write) {
  if (tid >= tables.size() || !tables[tid] || !size) return;
  Table& t = *tables[tid];
  for (UINT64 line = addr >> line_shift, last = (addr + size - 1) >> line_shift; line <= last; ++line) {
    Counts& c = t[Key{line, current_region}];
    if (write) ++c.writes;
    else ++c.reads;
  }
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

std::string name_of(ADDRINT code) {
  PIN_LockClient();
  std::string name = RTN_FindNameByAddress(code);
  PIN_UnlockClient();
  if (name.empty()) name = "0x" + hexstr(code).substr(2);
  return name;
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
  PIN_GetLock(&lock, tid + 1);
  if (tables.size() <= tid) tables.resize(tid + 1, nullptr);
  tables[tid] = new Table();
  PIN_ReleaseLock(&lock);
}

VOID fini(INT32, VOID*) {
  std::ofstream out(knob_out.Value().c_str());
  out << "slurm-pin-trace 1\ntool pin " << PIN_PRODUCT_VERSION_MAJOR << "." << PIN_PRODUCT_VERSION_MINOR
      << "\nline_size " << knob_line_size.Value() << "\nthreads " << tables.size() << "\n";
  for (size_t r = 0; r < regions.size(); ++r) out << "region " << r << " " << regions[r] << "\n";
  for (size_t t = 0; t < tables.size(); ++t)
    if (tables[t])
      for (const auto& e : *tables[t])
        out << "a " << t << " " << e.first.region << " " << e.first.line << " " << e.second.reads << " "
            << e.second.writes << "\n";
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
