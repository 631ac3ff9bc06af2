/* An installed header must not include the measuring layers. */
#include "overlap/overlap.h"
#include "bench/benchmark.hpp"
