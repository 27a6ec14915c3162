"""Reader decorators that work in background threads: buffered and xmap_readers.

Two promises hold for both: an exception raised in a background thread reaches the consumer
as that same exception object, and when the consumer stops early (a `break`, `close()`, an
error of its own) every thread is stopped and joined before control returns.
"""
import concurrent.futures
import queue
import threading

from paddle.reader.decorator import _check_positive, _check_readers, opened

# How often a blocked producer looks up to see whether the consumer has gone away. Short
# enough that closing a reader feels instant, long enough to cost nothing while it waits.
_POLL_SECONDS = 0.05

_END = object()  # the producer ran out of samples


class _Failure:
    """An exception raised by the producer thread, carried across the queue."""

    def __init__(self, error):
        self.error = error


def buffered(reader, size):
    """Read ahead in a background thread, keeping up to `size` samples ready.

    The source runs in its own thread while the consumer works on earlier samples, which
    hides slow file reads or decoding behind training.

    Args:
        reader: a reader creator.
        size: how many samples may wait in the buffer, a positive integer.

    Returns:
        A reader creator yielding the same samples in the same order.

    Raises:
        ValueError: `size` is not a positive integer.

    Example:
        >>> from paddle import reader
        >>> list(reader.buffered(lambda: iter(range(5)), 2)())
        [0, 1, 2, 3, 4]
    """
    _check_readers("buffered", reader)
    _check_positive("buffered", "size", size)

    def buffered_reader():
        slots = queue.Queue(maxsize=size)
        stop = threading.Event()
        worker = threading.Thread(target=_produce, args=(reader, slots, stop),
                                  name="paddle-reader-buffered", daemon=True)
        worker.start()
        try:
            while True:
                item = slots.get()
                if item is _END:
                    return
                if isinstance(item, _Failure):
                    raise item.error
                yield item
        finally:
            stop.set()
            worker.join()

    return buffered_reader


def _produce(reader, slots, stop):
    """Body of the `buffered` thread: fill `slots` until the source ends or `stop` is set."""
    try:
        with opened(reader) as samples:
            for sample in samples:
                if not _put(slots, sample, stop):
                    return
    except BaseException as error:  # noqa: BLE001 (handed to the consumer, who re-raises it)
        # Anything, even KeyboardInterrupt: a consumer left waiting on `get` would hang.
        _put(slots, _Failure(error), stop)
        return
    _put(slots, _END, stop)


def _put(slots, item, stop):
    """Put `item` unless the consumer stops first; True when it was put."""
    while not stop.is_set():
        try:
            slots.put(item, timeout=_POLL_SECONDS)
            return True
        except queue.Full:
            continue
    return False


def xmap_readers(mapper, reader, process_num, buffer_size, order=False):
    """Map `mapper` over a reader's samples with `process_num` worker threads.

    Threads help when `mapper` releases the GIL (NumPy, image decoding, file reads). The
    source itself is read in the consumer's thread as workers free up; wrap it in
    `buffered` if reading is slow too. At most `process_num + buffer_size` samples are in
    flight at once.

    Args:
        mapper: a function of one sample, returning the new sample.
        reader: a reader creator.
        process_num: how many worker threads, a positive integer.
        buffer_size: how many mapped samples may wait beyond the busy workers, a positive
            integer.
        order: keep the source's order; when False, samples come out as they are ready.

    Returns:
        A reader creator yielding mapped samples.

    Raises:
        ValueError: `process_num` or `buffer_size` is not a positive integer.

    Example:
        >>> from paddle import reader
        >>> squares = reader.xmap_readers(lambda x: x * x, lambda: iter(range(5)), 2, 4, order=True)
        >>> list(squares())
        [0, 1, 4, 9, 16]
    """
    if not callable(mapper):
        raise TypeError(f"xmap_readers: expected a function as mapper, received "
                        f"{type(mapper).__name__}")
    _check_readers("xmap_readers", reader)
    _check_positive("xmap_readers", "process_num", process_num)
    _check_positive("xmap_readers", "buffer_size", buffer_size)
    window = process_num + buffer_size

    def xmap_reader():
        pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=process_num, thread_name_prefix="paddle-reader-xmap")
        try:
            with opened(reader) as samples:
                pending = []  # futures in the order their samples were read
                source_done = False
                while True:
                    while not source_done and len(pending) < window:
                        sample = next(samples, _END)
                        if sample is _END:
                            source_done = True
                        else:
                            pending.append(pool.submit(mapper, sample))
                    if not pending:
                        return
                    # future.result() re-raises the mapper's own exception object.
                    yield pending.pop(_next_ready(pending, order)).result()
        finally:
            # Drop what has not started, wait for what is running: no thread outlives us.
            pool.shutdown(wait=True, cancel_futures=True)

    return xmap_reader


def _next_ready(pending, order):
    """Index in `pending` of the future to hand out next."""
    if order:
        return 0
    concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
    # Among the finished ones, the earliest read: fast mappers then keep the source order.
    return next(i for i, future in enumerate(pending) if future.done())
