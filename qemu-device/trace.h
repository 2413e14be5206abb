#include "trace/trace-hw_infiniband_vhca.h"
