"""Areas saving and saving.untrusted: random, truncated, bit-flipped and crafted files
for the loaders (docs/security.md)."""

from .core import Setup, case


BITFLIPS = 24  # per loader; --bitflips raises it


def saving_cases():
    prep = Setup("""
        import os, tempfile
        d = tempfile.mkdtemp()
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3), pd.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(rnd(8, 4), rnd(8, 1), verbose=0)
        path = os.path.join(d, "m.h5")
        model.save(path)
        raw = open(path, "rb").read()
        bad = os.path.join(d, "bad.h5")
    """)
    who = ["checkpoint", "h5", "hdf5", "file", "bad.h5", "load", "weights"]
    for fn in ("load_model", "load_weights"):
        call = "pd.load_model(bad)" if fn == "load_model" else "model.load_weights(bad)"
        case(
            "saving",
            f"{fn}-random-bytes",
            prep + f"""
        open(bad, "wb").write(np.random.default_rng(0).bytes(4096))
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-empty",
            prep + f"""
        open(bad, "wb").close()
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-missing",
            prep + f"""
        bad = os.path.join(d, "nope.h5")
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-directory",
            prep + f"""
        bad = d
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-path-int",
            prep + f"""
        bad = 5
        {call}""",
            who + ["path", "str"],
        )
        case(
            "saving",
            f"{fn}-path-none",
            prep + f"""
        bad = None
        {call}""",
            who + ["path", "str"],
        )
        case(
            "saving",
            f"{fn}-text-file",
            prep + f"""
        open(bad, "w").write("not hdf5")
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-hdf5-foreign",
            prep + f"""
        import h5py
        with h5py.File(bad, "w") as f:
            f["x"] = np.ones(3)
        {call}""",
            who,
        )
        for frac in (0.05, 0.2, 0.5, 0.8, 0.95, 0.999):
            case(
                "saving",
                f"{fn}-truncated-{frac}",
                prep + f"""
        open(bad, "wb").write(raw[:int(len(raw) * {frac})])
        {call}""",
                who,
            )
        for seed in range(BITFLIPS):
            case(
                "saving",
                f"{fn}-bitflip-{seed}",
                prep + f"""
        rng = np.random.default_rng({seed})
        data = bytearray(raw)
        for pos in rng.integers(0, len(data), {1 + seed % 4}):
            data[pos] ^= 1 << int(rng.integers(0, 8))
        open(bad, "wb").write(bytes(data))
        before = [w.copy() for w in model.get_weights()]
        try:
            m = {call}
        except Exception:
            # nothing assigned when the load fails
            for a, b in zip(before, model.get_weights()):
                check(np.array_equal(a, b), "weights changed by a failed load")
            raise
        m = m if m is not None else model
        for w in m.get_weights():
            finite(w, "loaded weight")
        for a, b in zip(pd.load_model(path).get_weights(), m.get_weights()):
            check(np.array_equal(a, b), "a bit flip changed a weight without an error")""",
                who,
                "either",
            )
    case(
        "saving",
        "load_weights-other-model",
        prep + """
        other = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(5), pd.layers.Dense(1)])
        other.load_weights(path)""",
        who + ["shape", "dense"],
    )
    case(
        "saving",
        "load_weights-fewer-layers",
        prep + """
        other = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
        other.load_weights(path)""",
        who + ["layer"],
    )
    case("saving", "save-to-directory", prep + "model.save(d)", who + ["save", "directory"])
    case("saving", "save-path-int", prep + "model.save(5)", who + ["save", "path"])
    case(
        "saving",
        "save-no-overwrite",
        prep + "model.save(path, overwrite=False)",
        who + ["exists", "overwrite"],
    )
    case(
        "saving",
        "load_model-custom-objects-bad",
        prep + "pd.load_model(path, custom_objects=5)",
        who + ["custom_objects"],
    )


def saving_more_cases():
    prep = Setup("""
        import os, tempfile
        d = tempfile.mkdtemp()
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
        model.compile("sgd", "mse")
    """)
    who = ["checkpoint", "h5", "file", "save", "load", "path", "folder", "directory", "weights"]
    for label, call in {
        "save-missing-folder": "model.save('/nonexistent/folder/m.h5')",
        "save-keras-extension": "model.save(os.path.join(d, 'm.keras')); pd.load_model(os.path.join(d, 'm.keras'))",
        "load-weights-file-as-model": "model.save_weights(os.path.join(d, 'w.h5')); pd.load_model(os.path.join(d, 'w.h5'))",
        "save-weights-unbuilt": "pd.Sequential([pd.layers.Dense(2)]).save_weights(os.path.join(d, 'u.h5'))",
        "load-weights-unbuilt": "model.save_weights(os.path.join(d, 'w.h5')); pd.Sequential([pd.layers.Dense(1)]).load_weights(os.path.join(d, 'w.h5'))",
        "save-read-only-folder": "os.chmod(d, 0o500); model.save(os.path.join(d, 'm.h5'))",
        "load-while-file-is-a-pipe": "os.mkfifo(os.path.join(d, 'p.h5')); pd.load_model(os.path.join(d, 'p.h5'))",
        "keras-zip-escaping-member": "import zipfile; zipfile.ZipFile(os.path.join(d, 'e.keras'), 'w').writestr('../x', b'1'); pd.load_model(os.path.join(d, 'e.keras'))",
        "keras-zip-without-config": "import zipfile; zipfile.ZipFile(os.path.join(d, 'n.keras'), 'w').writestr('a.txt', b'1'); pd.load_model(os.path.join(d, 'n.keras'))",
        "keras-weights-other-model": "model.save_weights(os.path.join(d, 'w.weights.h5')); pd.Sequential([pd.layers.Input(shape=(5,)), pd.layers.Dense(1)]).load_weights(os.path.join(d, 'w.weights.h5'))",
    }.items():
        case("saving", label, prep + call, who, "either")
    case("saving", "model-from-json-garbage", prep + "pd.models.model_from_json('[1, 2]')",
         ["model_from_json"])
    case("saving", "clone-model-not-a-model", prep + "pd.models.clone_model(5)",
         ["clone_model"])
    untrusted_file_cases()


def untrusted_file_cases():
    """Files crafted as an attacker would (docs/security.md): each must be refused with a
    CheckpointError naming what is wrong, never run code, read other files or crash."""
    prep = Setup("""
        import base64, json, os, tempfile, h5py
        d = tempfile.mkdtemp()
        path = os.path.join(d, 'm.h5')
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Lambda(lambda x: x * 2.0),
                               pd.layers.Dense(2)])
        model.save(path)
        def crafted(edit_config=None, edit_file=None):
            with h5py.File(path, 'r+') as f:
                del f.attrs['paddle_checksum'], f['model_weights'].attrs['paddle_weights_checksum']
                if edit_config:
                    config = json.loads(f.attrs['model_config'])
                    edit_config(config['config']['layers'])
                    f.attrs['model_config'] = json.dumps(config).encode()
                if edit_file:
                    edit_file(f)
            return path
        def kernel(f):
            group = f['model_weights']
            layer = [n for n in group.attrs['layer_names'] if b'dense' in n][0].decode()
            return group[layer], group[layer].attrs['weight_names'][0].decode()
        def external(f):
            g, n = kernel(f)
            shape = g[n].shape
            del g[n]
            g.create_dataset(n, shape=shape, dtype='float32', external=[('/etc/hostname', 0, 4 * shape[0] * shape[1])])
        def huge(f):
            g, n = kernel(f)
            del g[n]
            g.create_dataset(n, shape=(40000, 40000), dtype='float32', chunks=(1000, 1000), compression='gzip')
        def garbage_code(layers):
            function = layers[1]['config']['function']['config']
            function['code'] = base64.b64encode(base64.b64decode(function['code'])[:-7]).decode()
        def units(layers):
            layers[2]['config']['units'] = 10 ** 12
    """)
    who = ["checkpoint", "lambda", "safe_mode", "external", "shape", "memory", "bytecode"]
    for label, call in {
        "lambda-in-safe-mode": "pd.load_model(path)",
        "lambda-short-bytecode": "pd.load_model(crafted(garbage_code), safe_mode=False)",
        "external-storage": "pd.load_model(crafted(edit_file=external), safe_mode=False)",
        "huge-declared-dataset": "pd.load_model(crafted(edit_file=huge), safe_mode=False)",
        "units-beyond-memory": "pd.load_model(crafted(units), safe_mode=False)",
    }.items():
        case("saving.untrusted", label, prep + call, who)
