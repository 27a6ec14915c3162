"""python -m paddle.capi --cflags | --libs: the flags a C compiler needs for paddle_c.h."""
import argparse
import sys

from paddle import capi


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m paddle.capi", description=__doc__)
    parser.add_argument("--cflags", action="store_true", help="print the include flags")
    parser.add_argument("--libs", action="store_true",
                        help="print the library path, rpath and -lpaddle_c")
    args = parser.parse_args(argv)
    if not (args.cflags or args.libs):
        parser.print_usage(sys.stderr)
        return 2
    try:
        flags = ([capi.cflags()] if args.cflags else []) + ([capi.libs()] if args.libs else [])
    except FileNotFoundError as e:
        print(e, file=sys.stderr)
        return 1
    print(" ".join(flags))
    return 0


if __name__ == "__main__":
    sys.exit(main())
