// measure/ may include base only: this include breaks the layer rule.
#include "base/usage_error.hpp"
#include "clock/clock_model.hpp"
