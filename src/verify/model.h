// Internal model of the protocol checker (docs/verify.md): the synchronization events one
// warpgroup performs, in program order, as the interpreter (trace.cpp) reads them off the
// emitted statements, and the tables that name barriers and shared-memory slots. Nothing outside
// src/verify includes it. Events carry the statement they come from, never a re-derivation of
// the schedule.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sched2cu/emit/stmt.h"

namespace sched2cu::verify {

using emit::Access;
using emit::Stmt;

// A shared-memory access: the byte region it touches and, for a ring slot, which ring, slot
// and round (counter / depth) it means.
struct Acc {
  int region = -1;  // Tables::regions index (-1: a release, which names only the ring slot)
  int ring = -1;    // Tables::rings index, -1 for other buffers
  long long slot = 0, round = 0;
  Access::Engine engine = Access::Engine::Generic;
  bool write = false;
  int bar = -1;  // a ring slot's full barrier (what a generic write of the slot completes on)
};

struct Event {
  enum class K {
    BarInit,  // bar, count (arrivals per phase); what: the ring/barrier
    InitFence,
    Wait,      // bar, parity (the hardware's argument), expect (completions it means)
    Arrive,    // bar, count arrivals, tx expected bytes (arm)
    Release,   // Arrive on an empty barrier + the reads of `mem` (rounds <= round) released
    TmaLoad,   // bar completes with tx bytes; mem: the slot written
    TmaStore,  // mem: the staging read until a BulkWait covers the group
    MmaIssue,  // mem: the slots read until an MmaWait covers the group
    MmaWait,   // count: groups that may stay pending
    BulkWait,  // count: store groups that may stay pending
    ProxyFence,
    Read,         // mem: a generic-proxy read (registers from a slot)
    Write,        // mem: a generic-proxy write (registers into staging)
    NamedArrive,  // nb, threads (the barrier's count), count (threads arriving)
    NamedWait,    // nb: waits for the generation its NamedArrive opened
  };
  K k = K::Wait;
  int bar = -1;
  int parity = 0;
  long long expect = 0;
  int count = 0;
  long long tx = 0;
  long long phase = -1;  // Arrive / Release: the phase the arrival is for (its ring round)
  int nb = -1, threads = 0;
  std::vector<Acc> mem;
  const Stmt* stmt = nullptr;
  std::string what;  // the statement as printed, with the values the interpreter computed
};

// Names interned to dense ids: barriers ("ring0_0.full[2]"), rings, and the shared-memory byte
// regions accesses touch ([start, start + bytes) in the kernel's dynamic shared memory).
struct Tables {
  std::vector<std::string> bars, rings;
  std::vector<std::pair<long long, long long>> regions;  // start, bytes
  std::map<std::string, int> bar_id, ring_id;
  std::map<std::pair<long long, long long>, int> region_id;
  int bar(const std::string& n);
  int ring(const std::string& n);
  int region(long long start, long long bytes);
  std::string region_name(int r) const;
};

// One warpgroup's run: its role and its events.
struct Process {
  int warpgroup = 0;
  std::string role;  // the role comment of the statement that dispatched it
  std::vector<Event> events;
};

// How many iterations each scheduled loop runs in one scenario: the n-th time a role reaches
// loop l's trip count it is trips[l][n % size] (every role reaches them in the same order).
struct Scenario {
  std::map<int, std::vector<long long>> trips;
  int cluster = 1;  // CTAs in the launch's cluster (the modelled CTA is the first)
  std::string str() const;
};

// The interpreter (trace.cpp): every warpgroup's events for one scenario. Throws
// sched2cu::Error when a statement cannot be modelled (a condition on an unknown value, ...).
std::vector<Process> trace(const std::vector<Stmt>& body, int warpgroups,
                           const std::vector<std::string>& int_params,
                           const std::map<int, long long>& buffer_offset, const Scenario& sc,
                           Tables& tab);

// The explorer (explore.cpp): every interleaving of the processes' events.
struct Outcome {
  bool ok = true;
  long long states = 0;
  std::string error;  // the violation, and a per-warpgroup trace leading to it
};
Outcome explore(const std::vector<Process>& procs, const Tables& tab, long long max_states);

}  // namespace sched2cu::verify
