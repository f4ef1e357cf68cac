package xlsx

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"unicode/utf16"
)

// An encrypted workbook (one with a password to open) is not a zip
// package but an OLE2 compound file, as an old .xls is. What tells them
// apart is its directory: an encrypted workbook has a stream named
// "EncryptedPackage" (ECMA-376 part 3, or MS-OFFCRYPTO).

// maxOLEScan bounds how much of a compound file is searched for that
// stream's directory entry; real directories sit well within it.
const maxOLEScan = 16 << 20

// encryptedName is the stream's directory entry: its name in UTF-16LE,
// padded to 64 bytes, then the name's length in bytes with its NUL.
var encryptedName = func() []byte {
	var b [68]byte
	for i, u := range utf16.Encode([]rune("EncryptedPackage")) {
		binary.LittleEndian.PutUint16(b[2*i:], u)
	}
	binary.LittleEndian.PutUint16(b[64:], uint16(2*len("EncryptedPackage")+2))
	b[66] = 2 // a stream
	return b[:67]
}()

// isEncrypted reports whether the compound file at path is an encrypted
// workbook. Directory entries are 128 bytes, aligned on that in their
// sectors, which follow the 512-byte header.
func isEncrypted(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, maxOLEScan))
	if err != nil {
		return false
	}
	for at := 512; at+len(encryptedName) <= len(buf); at += 128 {
		if bytes.Equal(buf[at:at+len(encryptedName)], encryptedName) {
			return true
		}
	}
	return false
}
