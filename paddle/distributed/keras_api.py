"""Keras's distribution API (`pd.distribution`) over paddle's data parallelism.

paddle trains data-parallel over MPI: one process per device, each on its shard of the
data, gradients averaged (see paddle/distributed/__init__.py). Keras's names map onto it:
the devices of the job are its processes (`cpu:<rank>`, or `gpu:<rank>` when the job
runs on GPUs), `DataParallel` over them is what `pd.distributed.init()` sets up, and
`set_distribution(DataParallel())` joins the job. Model parallelism (sharding a weight
across devices) has no implementation in paddle: `ModelParallel` and sharded layouts raise
NotImplementedError saying so.

Example:
    >>> import paddle as pd
    >>> pd.distribution.list_devices()
    ['cpu:0']
    >>> mesh = pd.distribution.DeviceMesh((1,), ["batch"], pd.distribution.list_devices())
    >>> pd.distribution.DataParallel(device_mesh=mesh).batch_dim_name
    'batch'
"""
import re

import numpy as np

from paddle.devices.default import get_device
from paddle.distributed import world

_CURRENT = {"distribution": None}


def list_devices(device_type=None):
    """The devices of the job, one per process: ['cpu:0', 'cpu:1', ...] (or 'gpu:<rank>'),
    as Keras lists the devices its distributions span.

    Args:
        device_type: "cpu" or "gpu" (None: the kind of the default device).

    Example:
        >>> import paddle as pd
        >>> pd.distribution.list_devices("cpu")
        ['cpu:0']
    """
    kind = device_type.lower() if isinstance(device_type, str) else device_type
    if kind is None:
        kind = "gpu" if get_device().startswith("gpu") else "cpu"
    if kind not in ("cpu", "gpu"):
        raise ValueError(f"list_devices: expected device_type 'cpu', 'gpu' or None, "
                         f"received {device_type!r}")
    return [f"{kind}:{r}" for r in range(world.size())]


def get_device_count(device_type=None):
    """The number of devices of the job (its processes).

    Example:
        >>> import paddle as pd
        >>> pd.distribution.get_device_count()
        1
    """
    return len(list_devices(device_type))


def initialize(job_addresses=None, num_processes=None, process_id=None):
    """Join the job (`pd.distributed.init()`): the processes come from `mpiexec`, so the
    arguments, when given, must agree with it.

    Example:
        >>> import paddle as pd
        >>> pd.distribution.initialize()
    """
    world.init()
    if num_processes is not None and num_processes != world.size():
        raise ValueError(f"initialize: num_processes={num_processes}, but the job launched by "
                         f"mpiexec has {world.size()} processes")
    if process_id is not None and process_id != world.rank():
        raise ValueError(f"initialize: process_id={process_id}, but mpiexec made this "
                         f"process rank {world.rank()}")


class DeviceMesh:
    """Devices arranged in named axes (`shape`, `axis_names`), as Keras's.

    Args:
        shape: the mesh's sizes, whose product is the number of devices.
        axis_names: one name per axis ("batch", "model").
        devices: the devices (None: `list_devices()`).

    Example:
        >>> import paddle as pd
        >>> pd.distribution.DeviceMesh((1,), ["batch"]).axis_names
        ['batch']
    """

    def __init__(self, shape, axis_names, devices=None):
        shape, axis_names = tuple(shape), list(axis_names)
        if len(shape) != len(axis_names):
            raise ValueError(f"DeviceMesh: expected one axis name per axis of shape {shape}, "
                             f"received {axis_names}")
        devices = list_devices() if devices is None else list(np.asarray(devices).ravel())
        if int(np.prod(shape)) != len(devices):
            raise ValueError(f"DeviceMesh: shape {shape} holds {int(np.prod(shape))} devices, "
                             f"received {len(devices)}: {devices}")
        self.shape, self.axis_names = shape, axis_names
        self.devices = np.asarray(devices, dtype=object).reshape(shape)

    def __repr__(self):
        return f"<DeviceMesh {self.shape} axis_names={self.axis_names}>"


class TensorLayout:
    """How a tensor is laid out on a mesh: per axis, a mesh axis name (sharded) or None
    (replicated).

    Example:
        >>> import paddle as pd
        >>> pd.distribution.TensorLayout([None, "model"]).axes
        (None, 'model')
    """

    def __init__(self, axes, device_mesh=None):
        self.axes = tuple(axes)
        self.device_mesh = device_mesh
        if device_mesh is not None:
            unknown = [a for a in self.axes if a is not None and a not in device_mesh.axis_names]
            if unknown:
                raise ValueError(f"TensorLayout: axes {unknown} are not axes of the mesh "
                                 f"{device_mesh.axis_names}")

    @property
    def replicated(self):
        """Whether every axis is replicated (no axis is sharded)."""
        return all(a is None for a in self.axes)


class LayoutMap(dict):
    """Layouts of variables by path: a key is a regular expression searched in the
    variable's path, as Keras's.

    Example:
        >>> import paddle as pd
        >>> layouts = pd.distribution.LayoutMap(pd.distribution.DeviceMesh((1,), ["model"]))
        >>> layouts["dense.*kernel"] = (None, "model")
        >>> layouts["block/dense/kernel"].axes
        (None, 'model')
    """

    def __init__(self, device_mesh):
        super().__init__()
        self.device_mesh = device_mesh

    def __setitem__(self, key, layout):
        if not isinstance(layout, TensorLayout):
            layout = TensorLayout(layout, self.device_mesh)
        super().__setitem__(key, layout)

    def __getitem__(self, key):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        matches = [k for k in self if re.search(k, key)]
        if len(matches) > 1:
            raise ValueError(f"LayoutMap: the path {key!r} matches several keys {matches}")
        return dict.__getitem__(self, matches[0]) if matches else None


class DataParallel:
    """Data parallelism over the job's devices: every device holds all the weights and
    trains on its shard of each batch (paddle's `pd.distributed` training).

    Args:
        device_mesh: a 1-D mesh of the job's devices (None: one made of `devices`).
        devices: the devices (None: `list_devices()`); they must be the job's.
        auto_shard_dataset: shard the data across the processes (paddle always does).

    Example:
        >>> import paddle as pd
        >>> pd.distribution.DataParallel().device_mesh.shape
        (1,)
    """

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True):
        if device_mesh is None:
            devices = list_devices() if devices is None else list(devices)
            device_mesh = DeviceMesh((len(devices),), ["batch"], devices)
        if len(device_mesh.shape) != 1:
            raise ValueError(f"DataParallel: expected a 1-D device mesh, received shape "
                             f"{device_mesh.shape} (model parallelism is not available)")
        if device_mesh.devices.size != world.size():
            raise ValueError(f"DataParallel: paddle runs one process per device; the job has "
                             f"{world.size()} process(es), the mesh {device_mesh.devices.size} "
                             f"devices (launch with mpiexec -n {device_mesh.devices.size})")
        self.device_mesh = device_mesh
        self.batch_dim_name = device_mesh.axis_names[0]
        self.auto_shard_dataset = bool(auto_shard_dataset)

    def get_data_layout(self, data_shape):
        """The layout of a batch: its first axis sharded over the mesh."""
        return TensorLayout([self.batch_dim_name] + [None] * (len(data_shape) - 1),
                            self.device_mesh)

    def get_variable_layout(self, variable):
        """The layout of a weight: replicated on every device."""
        return TensorLayout([None] * len(variable.shape), self.device_mesh)


class ModelParallel:
    """Keras's model parallelism (weights sharded across devices by a LayoutMap)."""

    def __init__(self, *, layout_map=None, batch_dim_name=None, auto_shard_dataset=True,
                 **kwargs):
        raise NotImplementedError("ModelParallel: paddle has no model parallelism (a weight "
                                  "is never split across devices); use DataParallel")


def distribute_tensor(tensor, layout):
    """`tensor` laid out by `layout`: a replicated layout leaves it as it is (every process
    holds all of it, as paddle's data parallelism keeps weights); a sharded one raises
    NotImplementedError (paddle shards batches itself, in `fit`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.ones((2, 2))
        >>> pd.distribution.distribute_tensor(x, pd.distribution.TensorLayout([None, None])) is x
        True
    """
    if not isinstance(layout, TensorLayout):
        raise TypeError(f"distribute_tensor: expected a TensorLayout, received {layout!r}")
    if not layout.replicated:
        raise NotImplementedError(f"distribute_tensor: paddle cannot shard a tensor across "
                                  f"devices (layout axes {layout.axes}); fit shards batches "
                                  f"over the processes itself")
    return tensor


def distribution():
    """The distribution `set_distribution` set, or None.

    Example:
        >>> import paddle as pd
        >>> pd.distribution.distribution() is None or True
        True
    """
    return _CURRENT["distribution"]


def set_distribution(value):
    """Use `value` (a DataParallel, or None) for training: DataParallel joins the job
    (`pd.distributed.init()`), after which `fit` shards the data and averages gradients.

    Example:
        >>> import paddle as pd
        >>> pd.distribution.set_distribution(pd.distribution.DataParallel())
        >>> type(pd.distribution.distribution()).__name__
        'DataParallel'
        >>> pd.distribution.set_distribution(None)
    """
    if value is not None and not isinstance(value, DataParallel):
        raise ValueError(f"set_distribution: expected a DataParallel or None, received "
                         f"{value!r}")
    if value is not None:
        world.init()
    _CURRENT["distribution"] = value
