"""The CUDA backend's kernel table, which each kernel module of this package fills."""
from paddle.devices.kernel_table import KernelTable

KERNELS = KernelTable()
kernel = KERNELS.kernel  # @kernel("op", ...) or @kernel(family="unary") registers a prepare
