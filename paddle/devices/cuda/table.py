"""The CUDA backend's kernel table, which each kernel module of this package fills."""
from paddle.devices.half import in_float32
from paddle.devices.kernel_table import KernelTable

# Half nodes: kernels registered with `half_native` (products, elementwise ops) compute in
# the half type; the others run their float32 kernels on float32 scratch buffers with
# conversions in and out (paddle/devices/half.py), so reductions accumulate in float32.
KERNELS = KernelTable(half=in_float32)
HALF_NATIVE = ("float16", "bfloat16")
kernel = KERNELS.kernel  # @kernel("op", ...) or @kernel(family="unary") registers a prepare
