"""CPU kernels of the control-flow ops: the device-neutral ones of paddle/devices/nested.py,
which run the ops' subgraphs through plans on this device."""
from paddle.devices import nested
from paddle.devices.cpu.table import kernel

kernel("switch")(nested.prepare_switch)
kernel("while_loop")(nested.prepare_while_loop)
kernel("scan")(nested.prepare_scan)
