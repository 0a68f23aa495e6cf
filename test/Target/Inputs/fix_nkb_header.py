"""Rewrites a .nkb file's payload length and CRC-32 to match its payload.

Lets a test hand-make a file whose header is right but whose payload is
wrong in some other way (an invalid program, an unknown target), so that
the check behind the length and checksum is reached. The magic and version
(bytes 0-7) are kept. Usage: fix_nkb_header.py IN.nkb OUT.nkb
"""
import struct
import sys
import zlib

HEADER_BYTES = 20


def main():
    data = open(sys.argv[1], "rb").read()
    if len(data) < HEADER_BYTES:
        sys.exit("%s: shorter than the %d-byte header" % (sys.argv[1], HEADER_BYTES))
    payload = data[HEADER_BYTES:]
    header = data[:8] + struct.pack("<QI", len(payload), zlib.crc32(payload))
    open(sys.argv[2], "wb").write(header + payload)


if __name__ == "__main__":
    main()
