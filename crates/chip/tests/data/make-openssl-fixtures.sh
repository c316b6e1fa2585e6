#!/usr/bin/env bash
# Makes the OpenSSL test PKI in this folder: an implementation independent of mrtd's signs
# EF.SOD and a CSCA master list, so the tests check interoperability, not just a round trip.
#
#   utopia-csca.pem   CSCA, brainpoolP256r1 with explicit domain parameters
#   other-csca.pem    an unrelated CSCA (P-384)
#   EF.SOD, EF.DG1, EF.DG14
#                     a TD3 specimen's chip: DS brainpoolP256r1, ECDSA-SHA256, signed now
#   rsa-csca.pem, RSA-PSS.SOD
#                     RSA 3072 CSCA; RSA 2048 DS certificate signed with RSASSA-PSS (SHA-384,
#                     the largest salt); EF.SOD signed with RSASSA-PSS over SHA-512
#   utopia.ml         a CSCA master list holding both CSCAs, signed by a list signer that
#                     utopia-csca.pem issued
# The verdicts do not age: certificates are checked at EF.SOD's signing time.
# Run it from this folder; it needs openssl and python3, and writes no private key here.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
der_len() { python3 -c "import sys; n=int(sys.argv[1]); print((bytes([n]) if n<128 else (b'\x81'+bytes([n]) if n<256 else b'\x82'+n.to_bytes(2,'big'))).hex())" "$1"; }
wrap77() { { printf '\x77'; printf "$(der_len "$(stat -c %s "$1")" | sed 's/../\\x&/g')"; cat "$1"; } > "$2"; }

openssl ecparam -name brainpoolP256r1 -param_enc explicit -genkey -noout -out "$work/csca.key"
openssl req -new -x509 -key "$work/csca.key" -out utopia-csca.pem -days 7300 \
  -subj "/C=UT/O=Utopia/CN=CSCA Utopia" \
  -addext "basicConstraints=critical,CA:true,pathlen:0" -addext "keyUsage=critical,keyCertSign,cRLSign"
openssl ecparam -name brainpoolP256r1 -genkey -noout -out "$work/ds.key"
openssl req -new -key "$work/ds.key" -out "$work/ds.csr" -subj "/C=UT/O=Utopia/CN=DS Utopia 1"
openssl x509 -req -in "$work/ds.csr" -CA utopia-csca.pem -CAkey "$work/csca.key" -set_serial 4660 \
  -days 3650 -out "$work/ds.pem" -extfile <(printf "keyUsage=critical,digitalSignature\n")
openssl ecparam -name secp384r1 -genkey -noout -out "$work/other.key"
openssl req -new -x509 -key "$work/other.key" -out other-csca.pem -days 7300 \
  -subj "/C=UT/O=Other/CN=CSCA Other" \
  -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign"

python3 - "$work" <<'PY'
import hashlib, sys
work = sys.argv[1]
def tlv(tag, content):
    n = len(content)
    length = bytes([n]) if n < 128 else (b"\x81" + bytes([n]) if n < 256 else b"\x82" + n.to_bytes(2, "big"))
    return bytes([tag]) + length + content
mrz = b"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<L898902C36UTO7408122F1204159ZE184226B<<<<<10"
dg1 = tlv(0x61, b"\x5f\x1f" + bytes([len(mrz)]) + mrz)
dg14 = tlv(0x6E, tlv(0x31, tlv(0x30, tlv(0x06, bytes.fromhex("04007f000702020302")) + tlv(0x02, b"\x01"))))
open("EF.DG1", "wb").write(dg1)
open("EF.DG14", "wb").write(dg14)
sha256 = tlv(0x30, tlv(0x06, bytes.fromhex("608648016503040201")))
def entry(n, data):
    return tlv(0x30, tlv(0x02, bytes([n])) + tlv(0x04, hashlib.sha256(data).digest()))
lds = tlv(0x30, tlv(0x02, b"\x00") + sha256 + tlv(0x30, entry(1, dg1) + entry(14, dg14)))
open(f"{work}/lds.der", "wb").write(lds)
PY
openssl cms -sign -binary -nodetach -in "$work/lds.der" -econtent_type 2.23.136.1.1.1 \
  -signer "$work/ds.pem" -inkey "$work/ds.key" -md sha256 -outform DER -nosmimecap -out "$work/sod.cms"
wrap77 "$work/sod.cms" EF.SOD

openssl genrsa -out "$work/rcsca.key" 3072 2>/dev/null
openssl req -new -x509 -key "$work/rcsca.key" -out rsa-csca.pem -days 7300 -subj "/C=UT/CN=RSA CSCA" \
  -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign"
openssl genrsa -out "$work/rds.key" 2048 2>/dev/null
openssl req -new -key "$work/rds.key" -out "$work/rds.csr" -subj "/C=UT/CN=RSA DS"
openssl x509 -req -in "$work/rds.csr" -CA rsa-csca.pem -CAkey "$work/rcsca.key" -set_serial 77 \
  -days 3650 -out "$work/rds.pem" -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:max -sha384
openssl cms -sign -binary -nodetach -in "$work/lds.der" -econtent_type 2.23.136.1.1.1 \
  -signer "$work/rds.pem" -inkey "$work/rds.key" -md sha512 -keyopt rsa_padding_mode:pss \
  -outform DER -nosmimecap -out "$work/rsa.cms"
wrap77 "$work/rsa.cms" RSA-PSS.SOD

openssl ecparam -name brainpoolP256r1 -genkey -noout -out "$work/mls.key"
openssl req -new -key "$work/mls.key" -out "$work/mls.csr" -subj "/C=UT/O=Utopia/CN=Master List Signer"
openssl x509 -req -in "$work/mls.csr" -CA utopia-csca.pem -CAkey "$work/csca.key" -set_serial 4661 \
  -days 3650 -out "$work/mls.pem" -extfile <(printf "keyUsage=critical,digitalSignature\n")
python3 - "$work" <<'PY'
import subprocess, sys
work = sys.argv[1]
def tlv(tag, content):
    n = len(content)
    length = bytes([n]) if n < 128 else (b"\x81" + bytes([n]) if n < 256 else b"\x82" + n.to_bytes(2, "big"))
    return bytes([tag]) + length + content
certs = [subprocess.run(["openssl", "x509", "-in", f, "-outform", "DER"], capture_output=True, check=True).stdout
         for f in ("utopia-csca.pem", "other-csca.pem")]
open(f"{work}/list.der", "wb").write(tlv(0x30, tlv(0x02, b"\x00") + tlv(0x31, b"".join(sorted(certs)))))
PY
openssl cms -sign -binary -nodetach -in "$work/list.der" -econtent_type 2.23.136.1.1.2 \
  -signer "$work/mls.pem" -inkey "$work/mls.key" -md sha256 -outform DER -nosmimecap -out utopia.ml
