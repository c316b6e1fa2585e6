#!/usr/bin/env bash
# Makes the OpenSSL fixtures for every curve ICAO 9303 allows, in curves/, and a German-style
# trust chain in de/ (run from this folder, after make-openssl-fixtures.sh; needs openssl and
# python3; writes no private key here):
#
#   curves/NAME-csca.pem  a CSCA on curve NAME, with explicit domain parameters
#   curves/NAME.SOD       EF.SOD over EF.DG1 and EF.DG14, signed with ECDSA-SHA256 by a
#                         document signer on NAME (a named curve) that the CSCA issued
#   curves/NAME-compressed-csca.pem, curves/NAME-compressed.SOD
#                         the same for P-224 and brainpoolP512r1 with the CSCA's parameters
#                         and key in compressed form
#   de/csca.pem           a CSCA on brainpoolP512r1 with explicit parameters, as Germany's
#   de/de.ml              a CSCA master list holding it, signed by a brainpoolP512r1 list
#                         signer it issued
#   de/EF.SOD             EF.SOD signed by a brainpoolP256r1 document signer it issued
#   de/BER.SOD, de/BER.ml the same in BER, as OpenSSL streams it (indefinite lengths, the
#                         content in pieces), EF.SOD's wrapper with an indefinite length too
#   aa/EF.DG15, aa/EF.SOD, aa/response
#                         a chip's P-256 Active Authentication key in DG15, EF.SOD over DG1,
#                         DG14 and DG15 by the same document signer, and the chip's answer
#                         (ECDSA-SHA256, DER) to the challenge 0011223344556677
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p curves de aa
der_len() { python3 -c "import sys; n=int(sys.argv[1]); print((bytes([n]) if n<128 else (b'\x81'+bytes([n]) if n<256 else b'\x82'+n.to_bytes(2,'big'))).hex())" "$1"; }
wrap77() { { printf '\x77'; printf "$(der_len "$(stat -c %s "$1")" | sed 's/../\\x&/g')"; cat "$1"; } > "$2"; }
wrap77_indefinite() { { printf '\x77\x80'; cat "$1"; printf '\x00\x00'; } > "$2"; }

python3 - "$work" <<'PY'
import hashlib, sys
work = sys.argv[1]
def tlv(tag, content):
    n = len(content)
    length = bytes([n]) if n < 128 else (b"\x81" + bytes([n]) if n < 256 else b"\x82" + n.to_bytes(2, "big"))
    return bytes([tag]) + length + content
dg1, dg14 = open("EF.DG1", "rb").read(), open("EF.DG14", "rb").read()
sha256 = tlv(0x30, tlv(0x06, bytes.fromhex("608648016503040201")))
def entry(n, data):
    return tlv(0x30, tlv(0x02, bytes([n])) + tlv(0x04, hashlib.sha256(data).digest()))
open(f"{work}/lds.der", "wb").write(tlv(0x30, tlv(0x02, b"\x00") + sha256 + tlv(0x30, entry(1, dg1) + entry(14, dg14))))
PY

# csca NAME OPENSSL_CURVE OUT_PEM KEY: a self-signed CSCA with explicit parameters.
csca() {
  openssl ecparam -name "$2" -param_enc explicit -genkey -noout -out "$4"
  openssl req -new -x509 -key "$4" -out "$3" -days 7300 -subj "/C=UT/O=Curves/CN=CSCA $1" \
    -addext "basicConstraints=critical,CA:true,pathlen:0" -addext "keyUsage=critical,keyCertSign,cRLSign"
}
# issue SUBJECT OPENSSL_CURVE CSCA_PEM CSCA_KEY SERIAL OUT_PEM KEY: a signer the CSCA issued.
issue() {
  openssl ecparam -name "$2" -genkey -noout -out "$7"
  openssl req -new -key "$7" -out "$work/req.csr" -subj "$1"
  openssl x509 -req -in "$work/req.csr" -CA "$3" -CAkey "$4" -set_serial "$5" -days 3650 -sha256 \
    -out "$6" -extfile <(printf "keyUsage=critical,digitalSignature\n")
}
sign_sod() {
  openssl cms -sign -binary -nodetach -in "$work/lds.der" -econtent_type 2.23.136.1.1.1 \
    -signer "$1" -inkey "$2" -md sha256 -outform DER -nosmimecap -out "$work/sod.cms"
  wrap77 "$work/sod.cms" "$3"
}

for pair in P-192:prime192v1 P-224:secp224r1 P-256:prime256v1 P-384:secp384r1 P-521:secp521r1 \
  brainpoolP160r1:brainpoolP160r1 brainpoolP192r1:brainpoolP192r1 brainpoolP224r1:brainpoolP224r1 \
  brainpoolP256r1:brainpoolP256r1 brainpoolP320r1:brainpoolP320r1 brainpoolP384r1:brainpoolP384r1 \
  brainpoolP512r1:brainpoolP512r1; do
  name=${pair%%:*}; curve=${pair#*:}
  csca "$name" "$curve" "curves/$name-csca.pem" "$work/csca.key"
  issue "/C=UT/O=Curves/CN=DS $name" "$curve" "curves/$name-csca.pem" "$work/csca.key" 10 \
    "$work/ds.pem" "$work/ds.key"
  sign_sod "$work/ds.pem" "$work/ds.key" "curves/$name.SOD"
done

# The same with the CSCA's parameters and keys in compressed form (P-224's prime is 1 mod 4).
for pair in P-224:secp224r1 brainpoolP512r1:brainpoolP512r1; do
  name=${pair%%:*}; curve=${pair#*:}
  openssl ecparam -name "$curve" -genkey -noout -out "$work/named.key"
  openssl ec -in "$work/named.key" -param_enc explicit -conv_form compressed -out "$work/csca.key" 2>/dev/null
  openssl req -new -x509 -key "$work/csca.key" -out "curves/$name-compressed-csca.pem" -days 7300 \
    -subj "/C=UT/O=Curves/CN=CSCA $name compressed" \
    -addext "basicConstraints=critical,CA:true,pathlen:0" -addext "keyUsage=critical,keyCertSign,cRLSign"
  issue "/C=UT/O=Curves/CN=DS $name compressed" "$curve" "curves/$name-compressed-csca.pem" \
    "$work/csca.key" 11 "$work/ds.pem" "$work/ds.key"
  sign_sod "$work/ds.pem" "$work/ds.key" "curves/$name-compressed.SOD"
done

csca Germany brainpoolP512r1 de/csca.pem "$work/de.key"
issue "/C=UT/O=Germany/CN=Master List Signer" brainpoolP512r1 de/csca.pem "$work/de.key" 20 \
  "$work/mls.pem" "$work/mls.key"
issue "/C=UT/O=Germany/CN=Document Signer" brainpoolP256r1 de/csca.pem "$work/de.key" 21 \
  "$work/ds.pem" "$work/ds.key"
sign_sod "$work/ds.pem" "$work/ds.key" de/EF.SOD
python3 - "$work" <<'PY'
import subprocess, sys
work = sys.argv[1]
def tlv(tag, content):
    n = len(content)
    length = bytes([n]) if n < 128 else (b"\x81" + bytes([n]) if n < 256 else b"\x82" + n.to_bytes(2, "big"))
    return bytes([tag]) + length + content
cert = subprocess.run(["openssl", "x509", "-in", "de/csca.pem", "-outform", "DER"], capture_output=True, check=True).stdout
open(f"{work}/list.der", "wb").write(tlv(0x30, tlv(0x02, b"\x00") + tlv(0x31, cert)))
PY
openssl cms -sign -binary -nodetach -in "$work/list.der" -econtent_type 2.23.136.1.1.2 \
  -signer "$work/mls.pem" -inkey "$work/mls.key" -md sha256 -outform DER -nosmimecap -out de/de.ml
openssl cms -sign -binary -nodetach -stream -in "$work/lds.der" -econtent_type 2.23.136.1.1.1 \
  -signer "$work/ds.pem" -inkey "$work/ds.key" -md sha256 -outform DER -nosmimecap -out "$work/ber.cms"
wrap77_indefinite "$work/ber.cms" de/BER.SOD
openssl cms -sign -binary -nodetach -stream -in "$work/list.der" -econtent_type 2.23.136.1.1.2 \
  -signer "$work/mls.pem" -inkey "$work/mls.key" -md sha256 -outform DER -nosmimecap -out de/BER.ml

openssl ecparam -name prime256v1 -genkey -noout -out "$work/chip.key"
openssl ec -in "$work/chip.key" -pubout -outform DER -out "$work/chip.spki" 2>/dev/null
python3 - "$work" <<'PY'
import hashlib, sys
work = sys.argv[1]
def tlv(tag, content):
    n = len(content)
    length = bytes([n]) if n < 128 else (b"\x81" + bytes([n]) if n < 256 else b"\x82" + n.to_bytes(2, "big"))
    return bytes([tag]) + length + content
dg15 = tlv(0x6F, open(f"{work}/chip.spki", "rb").read())
open("aa/EF.DG15", "wb").write(dg15)
sha256 = tlv(0x30, tlv(0x06, bytes.fromhex("608648016503040201")))
def entry(n, data):
    return tlv(0x30, tlv(0x02, bytes([n])) + tlv(0x04, hashlib.sha256(data).digest()))
groups = [(1, open("EF.DG1", "rb").read()), (14, open("EF.DG14", "rb").read()), (15, dg15)]
lds = tlv(0x30, tlv(0x02, b"\x00") + sha256 + tlv(0x30, b"".join(entry(n, d) for n, d in groups)))
open(f"{work}/lds.der", "wb").write(lds)
open(f"{work}/challenge", "wb").write(bytes.fromhex("0011223344556677"))
PY
sign_sod "$work/ds.pem" "$work/ds.key" aa/EF.SOD
openssl dgst -sha256 -sign "$work/chip.key" -out aa/response "$work/challenge"
