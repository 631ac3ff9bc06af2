// bench/ uses liboverlap through its C API only.
#include "overlap/overlap.h"
#include <overlap/overlap.hpp>
