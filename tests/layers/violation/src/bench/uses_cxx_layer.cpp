// bench/ uses liboverlap through its C API only.
#include <overlap/overlap.hpp>
#include "overlap/overlap.h"
