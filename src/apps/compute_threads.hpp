// How many computation threads a rank gets, decided before MPI_Init (it is validated
// input): by default one per core of the rank's affinity mask, shared fairly when the
// launcher put several ranks on the node without binding them, minus --dedicate-cores.
#pragma once

#include <string>

namespace overlap::apps {

struct ThreadChoice {
  int threads = 1;
  int dedicated_cores = 0;
  int cores_available = 1;  // cores this rank may use, before dedicating any
};

// `threads_text` empty or "auto" means the default. Throws UsageError when the numbers do
// not fit the cores (e.g. dedicating every core the rank has).
ThreadChoice choose_threads(const std::string& threads_text, const std::string& dedicate_text);

}  // namespace overlap::apps
