"""Keras's directory readers: `image_dataset_from_directory`,
`text_dataset_from_directory` and `audio_dataset_from_directory` (`pd.utils`).

The files are listed as Keras lists them (`index_directory`: class folders in sorted
order, files walked in sorted order, one global shuffle with `RandomState(seed)`, the
validation split taken from the end), and read batch by batch: the readers are
`pd.utils.PyDataset`s that `fit`, `evaluate` and `predict` consume directly, holding only
the file names in memory, so a folder larger than memory trains. Simple PNG files of the
batch's size are decoded a batch at a time in C++ (`image_utils.read_png_batch`), every
other file with Pillow (`image_utils.read_image`: the decompression-bomb guard on, a
corrupt file named) and resized as `tf.image.resize` does; texts are decoded as UTF-8 (an undecodable file is
named); WAV files are read with Python's `wave` module as `tf.audio.decode_wav` reads
them (16-bit PCM, samples / 32768 as float32).

Where paddle differs: `shuffle=True` reshuffles the samples at every epoch with a
seeded NumPy generator (Keras's tf.data shuffles within a buffer of 8 batches);
interpolation is "bilinear" or "nearest"; `format` is "tf" or "grain" only by name (a
PyDataset either way).

Example:
    >>> import os, tempfile, numpy as np, paddle as pd
    >>> root = tempfile.mkdtemp()
    >>> for label in ("cats", "dogs"):
    ...     os.makedirs(os.path.join(root, label))
    ...     pd.utils.save_img(os.path.join(root, label, "a.png"), np.zeros((8, 8, 3)))
    >>> data = pd.utils.image_dataset_from_directory(root, image_size=(4, 4), batch_size=2,
    ...                                              verbose=False)
    >>> x, y = data[0]
    >>> data.class_names, x.shape, sorted(y.tolist())
    (['cats', 'dogs'], (2, 4, 4, 3), [0, 1])
"""
import numbers
import os
import wave

import numpy as np

from paddle.highlevel.training.data.py_dataset import PyDataset
from paddle.utils.image_utils import read_image, read_png_batch, resize, smart_resize

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
TEXT_FORMATS = (".txt",)
AUDIO_FORMATS = (".wav",)
MAX_AUDIO_SAMPLES = 1 << 28  # a header declaring more (per channel) is refused unread
LABEL_MODES = ("int", "categorical", "binary", None)


def index_directory(directory, labels, formats, class_names=None, shuffle=True, seed=None,
                    follow_links=False, what="index_directory"):
    """(file paths, integer labels or None, class names) of the files under `directory`
    whose names end with `formats`, as Keras's `dataset_utils.index_directory`."""
    if not isinstance(directory, (str, os.PathLike)) or not os.path.isdir(directory):
        raise ValueError(f"{what}: expected a directory, received {directory!r}")
    directory = os.fspath(directory)
    if labels == "inferred":
        subdirs = [d for d in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
        if class_names is not None:
            if not set(class_names) <= set(subdirs):
                raise ValueError(f"{what}: class_names {list(class_names)} do not match the "
                                 f"subdirectories of {directory}: expected {subdirs} (or a "
                                 "subset of it)")
            subdirs = list(class_names)
        if not subdirs:
            raise ValueError(f"{what}: {directory} has no class subdirectories (with "
                             "labels='inferred' each class is a folder of files); pass "
                             "labels=None to read the files without labels")
    else:
        if class_names is not None:
            raise ValueError(f"{what}: class_names is used with labels='inferred' only, "
                             f"received labels={labels!r}")
        subdirs = [""]
    filenames, found = [], []
    for index, subdir in enumerate(subdirs):
        folder = os.path.join(directory, subdir)
        walk = os.walk(folder, followlinks=bool(follow_links))
        for root, _, files in sorted(walk, key=lambda x: x[0]):
            for name in sorted(files):
                if name.lower().endswith(formats):
                    filenames.append(os.path.join(root, name))
                    found.append(index)
    if labels == "inferred":
        labels = np.asarray(found, np.int32)
    elif labels is None:
        subdirs = None
    else:
        if len(labels) != len(filenames):
            raise ValueError(f"{what}: expected one label per file: received {len(labels)} "
                             f"labels for the {len(filenames)} files in {directory}")
        subdirs = [str(label) for label in sorted(set(labels))]
        labels = np.asarray(labels)
    if shuffle:
        seed = np.random.randint(1e6) if seed is None else seed
        np.random.RandomState(seed).shuffle(filenames)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return filenames, labels, subdirs


def _check_split(validation_split, subset, shuffle, seed, what):
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"{what}: expected validation_split between 0 and 1, received "
                         f"{validation_split!r}")
    if bool(validation_split) != bool(subset):
        raise ValueError(f"{what}: give both validation_split and subset, or neither "
                         f"(received validation_split={validation_split!r}, "
                         f"subset={subset!r})")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f"{what}: expected subset 'training', 'validation' or 'both', "
                         f"received {subset!r}")
    if validation_split and shuffle and seed is None:
        raise ValueError(f"{what}: with validation_split and shuffle, give a seed so that "
                         "the training and validation subsets do not overlap")


def _subset(paths, labels, validation_split, subset):
    if not validation_split:
        return paths, labels
    n = int(validation_split * len(paths))
    cut = slice(None, len(paths) - n) if subset == "training" else slice(len(paths) - n, None)
    return paths[cut], None if labels is None else labels[cut]


# Threads that read the next batches while the model trains on this one, as tf.data's
# prefetch does behind Keras's readers: decoding runs while the step's kernels compute
# (they let go of the GIL). Two batches ahead at most, so large images cost little memory.
# Only with a core to spare (one reader per spare core, at most two): on 2 cores the
# readers took the cores the step's kernels use, and reading in the training loop's own
# thread cost less (benchmarks/input_pipeline.py, quiet 2-core machine: 23-28% of the step
# with two readers, 11-20% read in the loop). 1 means no thread (PyDataset's workers).
READ_AHEAD_WORKERS = max(1, min(2, (os.cpu_count() or 2) - 1))
READ_AHEAD_BATCHES = 2


class DirectoryDataset(PyDataset):
    """Batches of files read on demand: `__getitem__(i)` reads batch i's files; `fit`
    reads the next ones ahead in READ_AHEAD_WORKERS threads (none on a 2-core machine).

    Attributes:
        file_paths: the files in their (first epoch's) order.
        class_names: the class names, or None without labels.
    """

    def __init__(self, paths, labels, label_mode, class_names, batch_size, load, shuffle,
                 seed, workers=None):
        super().__init__(workers=READ_AHEAD_WORKERS if workers is None else workers,
                         max_queue_size=READ_AHEAD_BATCHES)
        self.file_paths = list(paths)
        self.class_names = class_names
        self._labels = labels
        self._label_mode = label_mode
        self._batch_size = batch_size
        self._load = load
        self._shuffle, self._seed, self._epoch = shuffle, seed, 0
        self._order = np.arange(len(self.file_paths))

    def __len__(self):
        if self._batch_size is None:
            return len(self.file_paths)
        return -(-len(self.file_paths) // self._batch_size)

    def _encoded(self, labels):
        if self._label_mode == "binary":
            return labels.astype(np.float32).reshape(-1, 1)
        if self._label_mode == "categorical":
            return np.eye(len(self.class_names), dtype=np.float32)[labels]
        return labels.astype(np.int32)

    def __getitem__(self, index):
        if not isinstance(index, numbers.Integral) or not -len(self) <= index < len(self):
            raise IndexError(f"DirectoryDataset: batch {index!r} of {len(self)}")
        index %= len(self)
        size = self._batch_size or 1
        picked = self._order[index * size:(index + 1) * size]
        x = self._load([self.file_paths[i] for i in picked])
        if self._batch_size is None:
            x = x[0]
        if self._labels is None or self._label_mode is None:
            return x
        y = self._encoded(np.asarray(self._labels)[picked])
        return x, (y[0] if self._batch_size is None else y)

    def on_epoch_end(self):
        """Reshuffle the samples for the next epoch (when made with shuffle=True)."""
        if self._shuffle:
            self._epoch += 1
            rng = np.random.default_rng([self._seed, self._epoch])
            self._order = rng.permutation(len(self.file_paths))


def _common_checks(labels, label_mode, class_names, batch_size, what):
    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple, np.ndarray)):
        raise ValueError(f"{what}: expected labels 'inferred', None, or a list of integer "
                         f"labels, received {labels!r}")
    if labels not in ("inferred", None) and class_names:
        raise ValueError(f"{what}: class_names is used with labels='inferred' only")
    if label_mode not in LABEL_MODES:
        raise ValueError(f"{what}: expected label_mode in {LABEL_MODES}, received "
                         f"{label_mode!r}")
    if batch_size is not None and (not isinstance(batch_size, numbers.Integral) or
                                   isinstance(batch_size, bool) or batch_size < 1):
        raise ValueError(f"{what}: expected batch_size as an integer >= 1 or None, received "
                         f"{batch_size!r}")


def _make(what, directory, labels, label_mode, class_names, formats, batch_size, shuffle,
          seed, validation_split, subset, follow_links, verbose, load, kind):
    _common_checks(labels, label_mode, class_names, batch_size, what)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    _check_split(validation_split, subset, shuffle, seed, what)
    seed = np.random.randint(1e6) if seed is None else int(seed)
    paths, found, names = index_directory(directory, labels, formats, class_names, shuffle,
                                          seed, follow_links, what)
    if label_mode == "binary" and len(names) != 2:
        raise ValueError(f"{what}: label_mode='binary' needs exactly 2 classes, received "
                         f"class_names={names}")
    if verbose:
        print(f"Found {len(paths)} files" + ("." if found is None else
                                            f" belonging to {len(names)} classes."))
    subsets = ("training", "validation") if subset == "both" else (subset,)
    out = []
    for part in subsets:
        p, l = _subset(paths, found, validation_split, part)
        if not p:
            raise ValueError(f"{what}: no {kind} files found in {directory}" +
                             (f" for the {part} subset" if part else "") +
                             f"; allowed formats: {formats}")
        out.append(DirectoryDataset(p, l, label_mode, names, batch_size, load,
                                    shuffle and part != "validation", seed))
    return tuple(out) if subset == "both" else out[0]


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, format="tf",
                                 verbose=True):
    """Batches of images (and labels) from a folder of class folders, read as needed
    (Keras's `keras.utils.image_dataset_from_directory`).

    Args:
        directory: the folder; with labels="inferred", one subfolder per class.
        labels: "inferred" (from the folders), None, or one integer label per file in
            the files' sorted order.
        label_mode: "int" (int32), "categorical" (float32 one-hot), "binary" (float32
            (n, 1), two classes) or None (images only).
        class_names: the class folders to read, in this order (default: all, sorted).
        color_mode: "rgb", "rgba" or "grayscale".
        batch_size: images per batch (None: single images).
        image_size: (height, width) every image is resized to.
        shuffle, seed: shuffle the files (Keras's order for a seed) and each epoch.
        validation_split, subset: the fraction kept for validation and which part to
            return: "training", "validation" or "both" (a pair of datasets).
        interpolation: "bilinear" or "nearest" (TensorFlow's resize).
        follow_links: follow symbolic links to folders (default False).
        crop_to_aspect_ratio: crop the center to the target's aspect ratio first.
        pad_to_aspect_ratio: not supported (False only).
        data_format: "channels_last" (default) or "channels_first".
        format, verbose: as Keras's ("tf" or "grain": a PyDataset either way).

    Returns:
        A `DirectoryDataset` (a PyDataset of float32 images (batch, height, width,
        channels) and labels), with `class_names` and `file_paths`; two for
        subset="both".

    Raises:
        ValueError: no class folders, no image files, bad arguments; reading a batch
            raises a ValueError naming a file that is not a readable image.

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> root = tempfile.mkdtemp()
        >>> os.makedirs(os.path.join(root, "a"))
        >>> pd.utils.save_img(os.path.join(root, "a", "x.png"), np.zeros((6, 6, 3)))
        >>> data = pd.utils.image_dataset_from_directory(root, image_size=(3, 3),
        ...                                              verbose=False)
        >>> data[0][0].shape, data[0][1].dtype
        ((1, 3, 3, 3), dtype('int32'))
    """
    what = "image_dataset_from_directory"
    channels = {"rgb": 3, "rgba": 4, "grayscale": 1}.get(color_mode)
    if channels is None:
        raise ValueError(f"{what}: expected color_mode 'rgb', 'rgba' or 'grayscale', "
                         f"received {color_mode!r}")
    if isinstance(image_size, numbers.Integral):
        image_size = (image_size, image_size)
    if not isinstance(image_size, (list, tuple)) or len(image_size) != 2 or not all(
            isinstance(n, numbers.Integral) and n > 0 for n in image_size):
        raise ValueError(f"{what}: expected image_size as (height, width), received "
                         f"{image_size!r}")
    interpolation = str(interpolation).lower()
    if interpolation not in ("bilinear", "nearest"):
        raise ValueError(f"{what}: paddle resizes with interpolation 'bilinear' or 'nearest' "
                         f"(TensorFlow's), received {interpolation!r}")
    if pad_to_aspect_ratio:
        raise ValueError(f"{what}: pad_to_aspect_ratio is not supported; use "
                         "crop_to_aspect_ratio or a Resizing layer")
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{what}: expected data_format 'channels_last' or "
                         f"'channels_first', received {data_format!r}")
    if format not in ("tf", "grain"):
        raise ValueError(f"{what}: expected format 'tf' or 'grain', received {format!r}")
    mode = {"rgb": "RGB", "rgba": "RGBA", "grayscale": "L"}[color_mode]
    size = tuple(int(n) for n in image_size)

    def load(paths):
        # Simple PNG files of the batch's size are decoded straight into the batch, a
        # batch at a time (read_png_batch); the others one by one, through Pillow: one
        # image object reused for the files of one size and mode (read_image), its pixels
        # copied once, as uint8 into float32.
        batch = np.empty((len(paths),) + size + (channels,), np.float32)
        reuse = None
        for k in read_png_batch(paths, batch, what):
            path = paths[k]
            img = reuse = read_image(path, what, reuse)
            if img.mode != mode:
                img = img.convert(mode)
            width, height = img.size
            pixels = np.frombuffer(img.tobytes(), np.uint8).reshape(height, width, channels)
            if crop_to_aspect_ratio:
                batch[k] = smart_resize(pixels, size, interpolation)
            elif (height, width) == size:
                batch[k] = pixels
            else:
                batch[k] = resize(pixels, size, interpolation)
        return batch if data_format == "channels_last" else \
            np.ascontiguousarray(batch.transpose(0, 3, 1, 2))

    return _make(what, directory, labels, label_mode, class_names, IMAGE_FORMATS, batch_size,
                 shuffle, seed, validation_split, subset, follow_links, verbose, load,
                 "image")


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None,
                                shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, format="tf", verbose=True):
    """Batches of texts (and labels) from a folder of class folders of `.txt` files, read
    as needed (Keras's `keras.utils.text_dataset_from_directory`).

    Args:
        directory, labels, label_mode, class_names, batch_size, shuffle, seed,
            validation_split, subset, follow_links, format, verbose: as in
            `image_dataset_from_directory`.
        max_length: keep at most this many bytes of each text (Keras's byte cut; a
            character cut in two is dropped).

    Returns:
        A `DirectoryDataset` of object arrays of str (batch,) and labels, with
        `class_names` and `file_paths`; two for subset="both". Its batches feed a model
        whose input is `pd.Input(shape=(), dtype="string")` or go to
        `TextVectorization.adapt`.

    Raises:
        ValueError: no class folders, no .txt files, bad arguments; reading a batch
            raises a ValueError naming a file that is not UTF-8 text.

    Example:
        >>> import os, tempfile, paddle as pd
        >>> root = tempfile.mkdtemp()
        >>> for label, text in (("neg", "bad"), ("pos", "good")):
        ...     os.makedirs(os.path.join(root, label))
        ...     with open(os.path.join(root, label, "1.txt"), "w") as f:
        ...         _ = f.write(text)
        >>> data = pd.utils.text_dataset_from_directory(root, shuffle=False, verbose=False)
        >>> data[0][0].tolist(), data[0][1].tolist()
        (['bad', 'good'], [0, 1])
    """
    what = "text_dataset_from_directory"
    if max_length is not None and (not isinstance(max_length, numbers.Integral) or
                                   max_length < 1):
        raise ValueError(f"{what}: expected max_length as an integer >= 1 or None, received "
                         f"{max_length!r}")
    if format not in ("tf", "grain"):
        raise ValueError(f"{what}: expected format 'tf' or 'grain', received {format!r}")

    def load(paths):
        texts = np.empty(len(paths), dtype=object)
        for k, path in enumerate(paths):
            with open(path, "rb") as f:
                raw = f.read()
            if max_length is not None:
                raw = raw[:max_length]
            try:
                texts[k] = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                if max_length is not None and e.start >= len(raw) - 3:
                    texts[k] = raw[:e.start].decode("utf-8")  # a character cut at the end
                    continue
                raise ValueError(f"{what}: {path} is not UTF-8 text ({e.reason} at byte "
                                 f"{e.start})") from None
        return texts

    return _make(what, directory, labels, label_mode, class_names, TEXT_FORMATS, batch_size,
                 shuffle, seed, validation_split, subset, follow_links, verbose, load, "text")



def read_wav(path, length=None, what="read_wav"):
    """A 16-bit PCM WAV file as float32 (samples, channels) in [-1, 1), as
    `tf.audio.decode_wav`; `length` cuts or zero-pads it. ValueError naming the file
    when it is not 16-bit PCM WAV or is truncated.

    Example:
        >>> import os, tempfile, wave
        >>> from paddle.utils.directory_datasets import read_wav
        >>> path = os.path.join(tempfile.mkdtemp(), "a.wav")
        >>> with wave.open(path, "wb") as w:
        ...     w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
        ...     w.writeframes(b"\\x00\\x40\\x00\\xc0")
        >>> read_wav(path)[:, 0].tolist()
        [0.5, -0.5]
    """
    return _read_wav(path, length, what)[0]


def _read_wav(path, length, what):
    """(audio, sampling rate) of a WAV file, as `read_wav`."""
    try:
        with wave.open(os.fspath(path), "rb") as w:
            channels, width, frames = w.getnchannels(), w.getsampwidth(), w.getnframes()
            if width != 2:
                raise ValueError(f"{what}: {path} holds {8 * width}-bit samples; paddle "
                                 "reads 16-bit PCM WAV files, as tf.audio.decode_wav")
            if frames > MAX_AUDIO_SAMPLES:
                raise ValueError(f"{what}: {path} declares {frames} samples, more than "
                                 f"{MAX_AUDIO_SAMPLES}")
            raw = w.readframes(frames)
            rate = w.getframerate()
    except (wave.Error, EOFError, OSError) as e:
        raise ValueError(f"{what}: {path} is not a readable PCM WAV file ({e})") from None
    if len(raw) != frames * channels * 2:
        raise ValueError(f"{what}: {path} is truncated: its header declares {frames} "
                         f"samples, the file holds {len(raw) // max(channels * 2, 1)}")
    audio = np.frombuffer(raw, "<i2").reshape(-1, channels).astype(np.float32) / 32768.0
    if length is not None:
        audio = audio[:length]
        if len(audio) < length:
            audio = np.concatenate([audio, np.zeros((length - len(audio), channels),
                                                    np.float32)])
    return audio, rate


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, batch_size=32, sampling_rate=None,
                                 output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None,
                                 follow_links=False, verbose=True):
    """Batches of audio (and labels) from a folder of class folders of `.wav` files, read
    as needed (Keras's `keras.utils.audio_dataset_from_directory`).

    Args:
        directory, labels, label_mode, class_names, batch_size, shuffle, seed,
            validation_split, subset, follow_links, verbose: as in
            `image_dataset_from_directory`.
        sampling_rate: None, or the files' own rate (resampling, which Keras does with
            tensorflow-io, is not supported: another rate raises when a batch is read).
        output_sequence_length: cut or zero-pad every file to this many samples (else a
            batch is zero-padded to its longest file).
        ragged: False only.

    Returns:
        A `DirectoryDataset` of float32 audio (batch, samples, channels) in [-1, 1) and
        labels; two for subset="both".

    Raises:
        ValueError: no class folders, no .wav files, bad arguments; reading a batch raises
            a ValueError naming a file that is not 16-bit PCM WAV, or whose channels or
            rate differ from its batch's.

    Example:
        >>> import os, tempfile, wave, paddle as pd
        >>> root = tempfile.mkdtemp()
        >>> os.makedirs(os.path.join(root, "beep"))
        >>> with wave.open(os.path.join(root, "beep", "a.wav"), "wb") as w:
        ...     w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
        ...     w.writeframes(bytes(6))
        >>> data = pd.utils.audio_dataset_from_directory(root, verbose=False)
        >>> data[0][0].shape
        (1, 3, 1)
    """
    what = "audio_dataset_from_directory"
    if ragged:
        raise ValueError(f"{what}: paddle has no ragged tensors, received ragged=True")
    if output_sequence_length is not None and (
            not isinstance(output_sequence_length, numbers.Integral) or
            output_sequence_length < 1):
        raise ValueError(f"{what}: expected output_sequence_length as an integer >= 1 or "
                         f"None, received {output_sequence_length!r}")
    if sampling_rate is not None and (not isinstance(sampling_rate, numbers.Integral) or
                                      sampling_rate <= 0):
        raise ValueError(f"{what}: expected sampling_rate as an integer > 0, received "
                         f"{sampling_rate!r}")

    def load(paths):
        clips = []
        for path in paths:
            clip, rate = _read_wav(path, output_sequence_length, what)
            if sampling_rate is not None and rate != sampling_rate:
                raise ValueError(f"{what}: {path} is sampled at {rate} Hz, "
                                 f"not sampling_rate={sampling_rate} (paddle does not "
                                 "resample)")
            if clips and clip.shape[1] != clips[0].shape[1]:
                raise ValueError(f"{what}: {path} has {clip.shape[1]} channels, the other "
                                 f"files of its batch {clips[0].shape[1]}")
            clips.append(clip)
        longest = max(len(c) for c in clips)
        out = np.zeros((len(clips), longest, clips[0].shape[1]), np.float32)
        for k, clip in enumerate(clips):
            out[k, :len(clip)] = clip
        return out

    return _make(what, directory, labels, label_mode, class_names, AUDIO_FORMATS,
                 batch_size, shuffle, seed, validation_split, subset, follow_links, verbose,
                 load, "audio")
