// progress/ includes nothing from the measuring layers.
#include <vector>
#include "base/usage_error.hpp"
#include "progress/task.hpp"
