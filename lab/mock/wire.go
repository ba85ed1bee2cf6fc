package mock

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Opcodes the mock speaks.
const (
	opReply = 1    // OP_REPLY: the answer to a legacy OP_QUERY
	opQuery = 2004 // OP_QUERY: drivers send their first hello this way
	opMsg   = 2013 // OP_MSG: every other command
)

// OP_MSG flag bits.
const (
	flagChecksumPresent = 1 << 0
	flagMoreToCome      = 1 << 1
	// The low 16 bits are required: a receiver must refuse a message with one it does not know.
	// The optional ones (exhaustAllowed) are ignored: every request gets at most one reply.
	requiredFlags = 0xffff
)

const (
	headerLen = 16
	// maxMessageSize is the hello reply's maxMessageSizeBytes: larger messages are refused.
	maxMessageSize = 48_000_000
	maxBSONSize    = 16 * 1024 * 1024
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header is a wire message's standard header.
type header struct {
	length, requestID, responseTo, opCode int32
}

// request is one command read from a connection.
type request struct {
	header header
	// legacy: it came as OP_QUERY and wants an OP_REPLY.
	legacy bool
	// noReply: OP_MSG with moreToCome: the client expects no answer.
	noReply bool
	// body is the command document (OP_MSG section 0, or OP_QUERY's query unwrapped from $query).
	body bson.Raw
	// seqs are OP_MSG kind-1 document sequences by identifier ("documents" for an insert).
	seqs map[string][]bson.Raw
}

// name returns the command's name: the body's first key.
func (r *request) name() string {
	els, err := r.body.Elements()
	if err != nil || len(els) == 0 {
		return ""
	}
	return els[0].Key()
}

// readRequest reads one message; it refuses anything but a well-formed OP_QUERY or OP_MSG.
func readRequest(rd io.Reader) (*request, error) {
	var hb [headerLen]byte
	if _, err := io.ReadFull(rd, hb[:]); err != nil {
		return nil, err
	}
	h := header{
		length:     int32(binary.LittleEndian.Uint32(hb[0:])),
		requestID:  int32(binary.LittleEndian.Uint32(hb[4:])),
		responseTo: int32(binary.LittleEndian.Uint32(hb[8:])),
		opCode:     int32(binary.LittleEndian.Uint32(hb[12:])),
	}
	if h.length < headerLen || h.length > maxMessageSize {
		return nil, protocolError{fmt.Errorf("messageLength %d: must be %d to %d", h.length, headerLen, maxMessageSize)}
	}
	payload := make([]byte, h.length-headerLen)
	if _, err := io.ReadFull(rd, payload); err != nil {
		return nil, fmt.Errorf("message of %d bytes cut short: %w", h.length, err)
	}
	var r *request
	var err error
	switch h.opCode {
	case opQuery:
		r, err = parseQuery(h, payload)
	case opMsg:
		r, err = parseMsg(h, hb[:], payload)
	default:
		err = fmt.Errorf("opCode %d: only OP_QUERY (%d) and OP_MSG (%d) are spoken", h.opCode, opQuery, opMsg)
	}
	if err != nil {
		return nil, protocolError{err}
	}
	return r, nil
}

// parseQuery reads OP_QUERY: flags, fullCollectionName, numberToSkip, numberToReturn, query
// [, returnFieldsSelector]. Only commands (a name ending in ".$cmd") are accepted.
func parseQuery(h header, p []byte) (*request, error) {
	if len(p) < 4 {
		return nil, errors.New("OP_QUERY: no flags")
	}
	p = p[4:]
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return nil, errors.New("OP_QUERY: fullCollectionName not terminated")
	}
	coll := string(p[:i])
	p = p[i+1:]
	if len(p) < 8 {
		return nil, errors.New("OP_QUERY: no numberToSkip/numberToReturn")
	}
	p = p[8:]
	doc, _, err := readDoc(p)
	if err != nil {
		return nil, fmt.Errorf("OP_QUERY query: %w", err)
	}
	if !bytes.HasSuffix([]byte(coll), []byte(".$cmd")) {
		return nil, fmt.Errorf("OP_QUERY on %q: only commands (<db>.$cmd) are spoken", coll)
	}
	// A legacy read preference wraps the command as {$query: {...}, $readPreference: ...}.
	if inner, ok := doc.Lookup("$query").DocumentOK(); ok {
		doc = inner
	}
	return &request{header: h, legacy: true, body: doc}, nil
}

// parseMsg reads OP_MSG: flagBits, sections, and the optional CRC-32C checksum, which covers the
// whole message before it.
func parseMsg(h header, hb, p []byte) (*request, error) {
	if len(p) < 4 {
		return nil, errors.New("OP_MSG: no flagBits")
	}
	flags := binary.LittleEndian.Uint32(p)
	if unknown := flags & requiredFlags &^ (flagChecksumPresent | flagMoreToCome); unknown != 0 {
		return nil, fmt.Errorf("OP_MSG flagBits %#x: unknown required bits %#x", flags, unknown)
	}
	if flags&flagChecksumPresent != 0 {
		if len(p) < 8 {
			return nil, errors.New("OP_MSG: checksumPresent but no checksum")
		}
		sum := binary.LittleEndian.Uint32(p[len(p)-4:])
		c := crc32.Update(crc32.Checksum(hb, castagnoli), castagnoli, p[:len(p)-4])
		if c != sum {
			return nil, fmt.Errorf("OP_MSG checksum %#x: the message's CRC-32C is %#x", sum, c)
		}
		p = p[:len(p)-4]
	}
	r := &request{header: h, noReply: flags&flagMoreToCome != 0}
	p = p[4:]
	for len(p) > 0 {
		kind := p[0]
		p = p[1:]
		switch kind {
		case 0:
			if r.body != nil {
				return nil, errors.New("OP_MSG: more than one body section (kind 0)")
			}
			doc, n, err := readDoc(p)
			if err != nil {
				return nil, fmt.Errorf("OP_MSG body: %w", err)
			}
			r.body, p = doc, p[n:]
		case 1:
			if len(p) < 4 {
				return nil, errors.New("OP_MSG document sequence: no size")
			}
			size := int(int32(binary.LittleEndian.Uint32(p)))
			if size < 5 || size > len(p) {
				return nil, fmt.Errorf("OP_MSG document sequence size %d: %d bytes left", size, len(p))
			}
			seq := p[4:size]
			p = p[size:]
			i := bytes.IndexByte(seq, 0)
			if i < 0 {
				return nil, errors.New("OP_MSG document sequence: identifier not terminated")
			}
			id := string(seq[:i])
			seq = seq[i+1:]
			if r.seqs == nil {
				r.seqs = map[string][]bson.Raw{}
			}
			docs := []bson.Raw{} // present even when empty
			for len(seq) > 0 {
				doc, n, err := readDoc(seq)
				if err != nil {
					return nil, fmt.Errorf("OP_MSG document sequence %q: %w", id, err)
				}
				docs = append(docs, doc)
				seq = seq[n:]
			}
			r.seqs[id] = append(r.seqs[id], docs...)
		default:
			return nil, fmt.Errorf("OP_MSG section kind %d: only 0 and 1 exist", kind)
		}
	}
	if r.body == nil {
		return nil, errors.New("OP_MSG: no body section (kind 0)")
	}
	return r, nil
}

// readDoc reads one BSON document at the start of p and returns it with its length.
func readDoc(p []byte) (bson.Raw, int, error) {
	if len(p) < 5 {
		return nil, 0, fmt.Errorf("document of %d bytes: too short", len(p))
	}
	n := int(int32(binary.LittleEndian.Uint32(p)))
	if n < 5 || n > len(p) || n > maxBSONSize {
		return nil, 0, fmt.Errorf("document size %d: %d bytes left", n, len(p))
	}
	doc := bson.Raw(p[:n])
	if err := doc.Validate(); err != nil {
		return nil, 0, fmt.Errorf("invalid BSON: %w", err)
	}
	return doc, n, nil
}

// appendHeader appends a header with a placeholder length; finish sets it.
func appendHeader(b []byte, requestID, responseTo, opCode int32) []byte {
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(requestID))
	b = binary.LittleEndian.AppendUint32(b, uint32(responseTo))
	return binary.LittleEndian.AppendUint32(b, uint32(opCode))
}

func finish(b []byte) []byte {
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// encodeReply builds the answer to r: an OP_REPLY with one document for a legacy OP_QUERY, else
// an OP_MSG with one body section and no flags (no checksum: the client may omit it too).
func encodeReply(r *request, requestID int32, doc []byte) []byte {
	if r.legacy {
		b := appendHeader(nil, requestID, r.header.requestID, opReply)
		b = binary.LittleEndian.AppendUint32(b, 0) // responseFlags
		b = binary.LittleEndian.AppendUint64(b, 0) // cursorID
		b = binary.LittleEndian.AppendUint32(b, 0) // startingFrom
		b = binary.LittleEndian.AppendUint32(b, 1) // numberReturned
		return finish(append(b, doc...))
	}
	b := appendHeader(nil, requestID, r.header.requestID, opMsg)
	b = binary.LittleEndian.AppendUint32(b, 0) // flagBits
	b = append(b, 0)                           // section kind 0
	return finish(append(b, doc...))
}
