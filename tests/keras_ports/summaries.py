"""Check a paddle `model.summary()` against the numbers Keras prints for the same program."""


def printed_summary(model):
    """The lines `model.summary()` prints, as a list."""
    lines = []
    model.summary(print_fn=lines.append)
    return lines


def assert_summary(lines, rows, total, trainable=None, inputs=()):
    """`rows`: (layer name, output shape, parameter count) as Keras's summary lists them;
    `total`/`trainable`: its "Total params" and "Trainable params" counts; `inputs`: the
    shapes of the `InputLayer` rows a functional model's summary starts with."""
    input_rows = [line for line in lines if "(InputLayer)" in line]
    assert len(input_rows) == len(inputs), input_rows
    for row, shape in zip(input_rows, inputs):
        assert f" {shape} " in row and row.split()[-1] == "0", (row, shape)
    for name, shape, params in rows:
        row = next((line for line in lines if line.startswith(name + " (")), None)
        assert row is not None, f"no row for {name!r} in:\n" + "\n".join(lines)
        assert str(shape) in row and f" {params:,} " in f" {row} ", (name, shape, params, row)
    assert f"Total params: {total:,}" in lines, lines
    trainable = total if trainable is None else trainable
    assert f"Trainable params: {trainable:,}" in lines, lines
    assert f"Non-trainable params: {total - trainable:,}" in lines, lines
