"""The CPU backend's kernel table, which each kernel module of this package fills."""
from paddle.devices.half import in_float32
from paddle.devices.kernel_table import KernelTable

# Half nodes run the float32 kernels on float32 scratch buffers (paddle/devices/half.py).
KERNELS = KernelTable(half=in_float32)
kernel = KERNELS.kernel  # @kernel("op", ...) or @kernel(family="unary") registers a prepare
