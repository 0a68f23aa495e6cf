"""Feeds seeded random mutations of a .nkb file to nki-translate.

Every mutant must either be rejected with exit code 1 or, when it still
decodes, translate back to exactly its own bytes. A crash (a signal) or any
other exit code fails. Usage: mutate_binary.py FILE.nkb SEED COUNT WORKDIR
"""
import os
import random
import subprocess
import sys


def mutate(data, rng):
    d = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.random()
        if kind < 0.6 and len(d) > 8:
            d[rng.randrange(8, len(d))] = rng.randrange(256)
        elif kind < 0.8:
            d = d[:rng.randrange(len(d) + 1)]
        else:
            i = rng.randrange(len(d) + 1)
            d[i:i] = bytes([rng.randrange(256)])
    return bytes(d)


def main():
    path, seed, count, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    data = open(path, "rb").read()
    rng = random.Random(seed)
    mutant, again = os.path.join(work, "mutant.nkb"), os.path.join(work, "again.nkb")
    decoded = rejected = 0
    for i in range(count):
        d = mutate(data, rng)
        with open(mutant, "wb") as f:
            f.write(d)
        r = subprocess.run(["nki-translate", "--binary-to-nisa", mutant],
                           capture_output=True)
        if r.returncode == 1:
            rejected += 1
            continue
        if r.returncode != 0:
            sys.exit("mutant %d: exit code %d\n%s" % (i, r.returncode, r.stderr))
        back = subprocess.run(["nki-translate", "--nisa-to-binary", "-o", again],
                              input=r.stdout, capture_output=True)
        if back.returncode != 0 or open(again, "rb").read() != d:
            sys.exit("mutant %d decodes but does not round-trip" % i)
        decoded += 1
    print("mutants: %d rejected, %d round-tripped" % (rejected, decoded))


if __name__ == "__main__":
    main()
