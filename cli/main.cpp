// rooftop: benchmarks of AI workloads with roofline reporting.
#include "rooftop/rooftop.hpp"

int main(int argc, char** argv) { return rooftop::run_main(argc, argv); }
