// Umbrella include of the sched2cu device runtime for sm_90a (what generated.cu and every
// handwritten.cu include). Holds no code of its own.
#pragma once

#include "sched2cu/blocked.cuh"
#include "sched2cu/blocked_at.cuh"
#include "sched2cu/blocked_atomic.cuh"
#include "sched2cu/blocked_convert.cuh"
#include "sched2cu/blocked_reduce.cuh"
#include "sched2cu/cluster.cuh"
#include "sched2cu/common.cuh"
#include "sched2cu/libdevice.cuh"
#include "sched2cu/mbarrier.cuh"
#include "sched2cu/regtile.cuh"
#include "sched2cu/regtile_box_load.cuh"
#include "sched2cu/regtile_global.cuh"
#include "sched2cu/regtile_map.cuh"
#include "sched2cu/tma.cuh"
#include "sched2cu/warpgroup.cuh"
#include "sched2cu/wgmma.cuh"
