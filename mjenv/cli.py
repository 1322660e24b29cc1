"""``mjenv`` command line (placeholder until the tournament lands; see issue 6)."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mjenv")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("tournament", help="a short duplicate-deal tournament of the baselines")
    args = parser.parse_args(argv)
    if args.command == "tournament":
        from mjenv.deficiency import deficiency

        hand, kb = "()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8)", "(001100121)(010000030)(032242321)"
        print(f"deficiency({hand}, {kb}) = {deficiency(hand, kb, method='dp')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
