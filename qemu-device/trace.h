#include "trace/trace-hw_misc_vhca.h"
