package failpoint

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/overloadsim/overloadsim/field"
	"github.com/overloadsim/overloadsim/wire"
)

// Config is one configureFailPoint command for the failCommand failpoint: the mode and the data
// document, field for field. The zero value is invalid (the mode is required).
//
// Fields of the data document that the model does not have (writeConcernError, threadName,
// namespace, failLocalClients, failAllCommands, errorExtraInfo, tassert) are absent.
type Config struct {
	// Mode says which matching commands fire. With ModeOff the data is ignored and not
	// validated, as the server never reads it while off.
	Mode Mode

	// FailCommands names the commands the failpoint applies to, as MongoDB spells them
	// (case-sensitive); at least one. Duplicates are harmless. The model has one hello command
	// for both MongoDB's hello and its legacy isMaster/ismaster command (which the server
	// registers as a separate command), so any of those names selects wire.Hello; findandmodify
	// is findAndModify's alias.
	FailCommands []string
	// ErrorCode is the error a matching command fails with; 0 means none (a real server given
	// errorCode 0 raises nothing either). It must be a code wire names.
	ErrorCode int
	// ErrorLabels replace the labels the node would otherwise put on any error this command
	// returns, whether the failpoint's own or a later one. They are given when HasErrorLabels is
	// true or the list is non-empty; an empty list given with HasErrorLabels removes all
	// labels, while labels not given leave the node's own.
	ErrorLabels    []string
	HasErrorLabels bool
	// RetryPushbackMS is server pushback put on the error the failpoint returns (HasRetryPushback
	// says it is given): retry after this many milliseconds, or, when negative, do not retry
	// (gRPC's grpc-retry-pushback-ms; AWS's x-amz-retry-after, which ignores a negative value).
	// Needs ErrorCode. The MongoDB driver policies ignore it.
	RetryPushbackMS  int64
	HasRetryPushback bool
	// CloseConnection closes the connection instead of replying: the client sees a network
	// error. It wins over ErrorCode.
	CloseConnection bool
	// BlockConnection delays the command by BlockTimeMS before its outcome (closing, failing with
	// ErrorCode, or running normally when neither is set).
	BlockConnection bool
	// BlockTimeMS is the delay in milliseconds; > 0 when BlockConnection is set and 0
	// otherwise.
	BlockTimeMS int64
	// AppName, when not empty, limits the failpoint to connections whose handshake appName is
	// exactly this string. (The server can also match an empty appName; the model cannot.)
	AppName string
	// FailInternalCommands lets the failpoint apply to commands from internal clients (a
	// mongos or mongod talking to this node); by default they are exempt and do not consume
	// times or skip counts.
	FailInternalCommands bool
}

// commandAliases are the names, other than wire's, that select a command.
var commandAliases = map[string]wire.Command{
	"isMaster":      wire.Hello,
	"ismaster":      wire.Hello,
	"findandmodify": wire.FindAndModify,
}

// lookupCommand returns the command failCommands entry name selects. Connect and Disconnect are
// the model's connection events, not MongoDB commands, so no name selects them.
func lookupCommand(name string) (wire.Command, bool) {
	if c, ok := commandAliases[name]; ok {
		return c, true
	}
	c, ok := wire.ParseCommand(name)
	if !ok || c == wire.Connect || c == wire.Disconnect {
		return 0, false
	}
	return c, true
}

// CommandNames returns every name FailCommands accepts, sorted.
func CommandNames() []string {
	var out []string
	for i := range wire.NumCommands {
		c := wire.Command(i)
		if c != wire.Connect && c != wire.Disconnect {
			out = append(out, c.String())
		}
	}
	for name := range commandAliases {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// ErrorCodes returns every code ErrorCode accepts, ascending: the codes wire names except OK.
func ErrorCodes() []wire.Code {
	return slices.DeleteFunc(wire.KnownCodes(), func(c wire.Code) bool { return c == wire.OK })
}

// knownCode reports whether v is a non-zero code wire names, without truncating v to 32 bits.
func knownCode(v int) bool {
	return v != 0 && v >= math.MinInt32 && v <= math.MaxInt32 && wire.Code(v).Known()
}

// maxBlockTimeMS is the longest block a time.Duration can hold.
const maxBlockTimeMS = math.MaxInt64 / int64(time.Millisecond)

// Validate reports every problem with c at once, each as a *field.Error naming the field (as the
// configureFailPoint document spells it: mode.times, data.errorCode), its value and the rule,
// after "failpoint: ", joined with errors.Join.
//
// Where a real server accepts a configuration that would misbehave later, Validate rejects it:
// blockConnection without a positive blockTimeMS (the server accepts it, then fails every
// matching command with InvalidOptions), blockTimeMS without blockConnection (ignored by the
// server), data that sets none of errorCode, closeConnection and blockConnection (the server
// never fires it outside writeConcernError, which the model lacks), and command names, codes and
// labels that the model does not know (the server accepts any: unknown names never match, and
// any code or label string is returned as given).
func (c Config) Validate() error {
	var errs []error
	bad := func(name string, v any, rule string) {
		errs = append(errs, fmt.Errorf("failpoint: %w", field.New(name, v, rule)))
	}
	c.Mode.problems(bad)
	if c.Mode.Kind == ModeOff {
		return errors.Join(errs...)
	}

	if len(c.FailCommands) == 0 {
		bad("data.failCommands", "[]", "must name at least one command")
	}
	for i, name := range c.FailCommands {
		if _, ok := lookupCommand(name); !ok {
			bad(fmt.Sprintf("data.failCommands[%d]", i), strconv.Quote(name),
				"unknown command; known: "+strings.Join(CommandNames(), ", "))
		}
	}
	if c.ErrorCode != 0 {
		// errorCode means a MongoDB code for MongoDB commands and a status of the command's
		// own service for Couchbase ones (a KV status byte, a query error, an HTTP status):
		// it must be valid for every command listed.
		for _, svc := range services(c.FailCommands) {
			switch {
			case svc == wire.ServiceMongoDB && !knownCode(c.ErrorCode):
				bad("data.errorCode", c.ErrorCode, "not a code the model knows; allowed: "+describeCodes(ErrorCodes()))
			case svc.Couchbase():
				if _, ok := wire.CouchbaseStatus(svc, c.ErrorCode); !ok {
					bad("data.errorCode", c.ErrorCode, "not a "+svc.String()+" status the model knows (failCommands has "+
						svc.String()+" commands); allowed: "+describeStatuses(wire.CouchbaseStatuses(svc)))
				}
			}
		}
	}
	if len(c.ErrorLabels) > 0 {
		for _, svc := range services(c.FailCommands) {
			if svc.Couchbase() {
				bad("data.errorLabels", quotedSet(c.ErrorLabels), "error labels are MongoDB's: a "+svc.String()+" command carries none")
			}
		}
	}
	for i, name := range c.ErrorLabels {
		if _, ok := wire.ParseLabel(name); !ok {
			bad(fmt.Sprintf("data.errorLabels[%d]", i), strconv.Quote(name),
				"unknown error label; known: "+strings.Join(wire.LabelNames(), ", "))
		}
	}
	switch {
	case c.BlockTimeMS < 0:
		bad("data.blockTimeMS", c.BlockTimeMS, "must be ≥ 0")
	case c.BlockTimeMS > maxBlockTimeMS:
		bad("data.blockTimeMS", c.BlockTimeMS, fmt.Sprintf("must be ≤ %d (the longest time.Duration)", maxBlockTimeMS))
	case c.BlockConnection && c.BlockTimeMS == 0:
		bad("data.blockTimeMS", c.BlockTimeMS, "must be > 0 when blockConnection is true")
	case !c.BlockConnection && c.BlockTimeMS != 0:
		bad("data.blockTimeMS", c.BlockTimeMS, "has no effect unless blockConnection is true")
	}
	if c.HasRetryPushback && (c.ErrorCode == 0 || c.CloseConnection) {
		bad("data.retryPushbackMS", c.RetryPushbackMS, "needs an errorCode to travel on (and no closeConnection): pushback is part of an error reply")
	}
	if c.ErrorCode == 0 && !c.CloseConnection && !c.BlockConnection {
		bad("data", "errorCode 0, closeConnection false, blockConnection false",
			"must set errorCode, closeConnection or blockConnection, or the failpoint never fires")
	}
	return errors.Join(errs...)
}

// services returns the services of the known commands among names, each once, in Service order;
// MongoDB's alone when none is known.
func services(names []string) []wire.Service {
	var seen [8]bool
	for _, name := range names {
		if c, ok := lookupCommand(name); ok && int(c.Service()) < len(seen) {
			seen[c.Service()] = true
		}
	}
	var out []wire.Service
	for i, ok := range seen {
		if ok {
			out = append(out, wire.Service(i))
		}
	}
	if len(out) == 0 { // no known command: check the code as MongoDB's, the common case
		out = append(out, wire.ServiceMongoDB)
	}
	return out
}

// describeStatuses formats Couchbase statuses as "134 (KV TemporaryFailure (0x86)), …".
func describeStatuses(codes []wire.Code) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = strconv.Itoa(c.Number()) + " (" + c.String() + ")"
	}
	return strings.Join(parts, ", ")
}

// describeCodes formats codes as "2 (BadValue), 6 (HostUnreachable), …".
func describeCodes(codes []wire.Code) string {
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = strconv.Itoa(int(c)) + " (" + c.String() + ")"
	}
	return strings.Join(parts, ", ")
}

// String formats c as a configureFailPoint document with its fields in a fixed order, leaving
// out unset ones. failCommands and errorLabels are sorted and de-duplicated, so two configs
// that behave alike print alike.
func (c Config) String() string {
	var b strings.Builder
	b.WriteString("{mode: ")
	b.WriteString(c.Mode.String())
	var data []string
	if len(c.FailCommands) > 0 {
		data = append(data, "failCommands: "+quotedSet(c.FailCommands))
	}
	if c.ErrorCode != 0 {
		data = append(data, "errorCode: "+strconv.Itoa(c.ErrorCode))
	}
	if c.HasErrorLabels || len(c.ErrorLabels) > 0 {
		data = append(data, "errorLabels: "+quotedSet(c.ErrorLabels))
	}
	if c.CloseConnection {
		data = append(data, "closeConnection: true")
	}
	if c.BlockConnection {
		data = append(data, "blockConnection: true")
	}
	if c.BlockTimeMS != 0 {
		data = append(data, "blockTimeMS: "+strconv.FormatInt(c.BlockTimeMS, 10))
	}
	if c.AppName != "" {
		data = append(data, "appName: "+strconv.Quote(c.AppName))
	}
	if c.FailInternalCommands {
		data = append(data, "failInternalCommands: true")
	}
	if len(data) > 0 {
		b.WriteString(", data: {")
		b.WriteString(strings.Join(data, ", "))
		b.WriteString("}")
	}
	b.WriteString("}")
	return b.String()
}

// quotedSet formats names sorted, de-duplicated and quoted: ["a", "b"].
func quotedSet(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	s = slices.Compact(s)
	for i := range s {
		s[i] = strconv.Quote(s[i])
	}
	return "[" + strings.Join(s, ", ") + "]"
}
