#!/bin/bash
# The main job: show the validated nvcc command line for a Jetson Orin build
# of examples/vector_add.cu.
set -euo pipefail
xcc=$1
top=$(cd "$(dirname "$0")/.." && pwd)
echo "== cuda-xcc flags --target jetson --cuda 12.6 -arch sm_87"
"$xcc" flags --target jetson --cuda 12.6 -arch sm_87
echo "== cuda-xcc --target jetson --cuda 12.6 -arch sm_87 -### examples/vector_add.cu -o vector_add"
"$xcc" --target jetson --cuda 12.6 -arch sm_87 -### "$top/examples/vector_add.cu" -o vector_add
