#pragma once
// The work one iteration of a problem must do (defined with the public API's types).
#include "rooftop/types.hpp"
