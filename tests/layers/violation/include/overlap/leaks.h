/* An installed header must not include the measuring layers. */
#include "bench/benchmark.hpp"
#include "overlap/overlap.h"
