package failpoint

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/overloadsim/overloadsim/wire"
)

// Client is what the failpoint's data predicate sees of the connection a command arrived on.
type Client struct {
	// AppName is the appName the connection's handshake sent ("" when none).
	AppName string
	// Internal marks a connection from another node (a mongos routing to a shard, replication):
	// the server's isInternalClient. Such commands are exempt unless FailInternalCommands is
	// set.
	Internal bool
}

// Action is what a node does with one command the failpoint evaluated. The zero Action (Fire
// false) means the failpoint did not fire: process the command normally.
//
// When Fire is true, the node waits Block (possibly 0) and then, in this order of precedence:
// closes the connection without replying if Close; fails the command with Code if Code is not
// wire.OK; otherwise processes the command normally. In every case, if LabelsGiven, Labels
// replace the labels on any error the command ends with (ignored when Close, as there is no
// reply).
type Action struct {
	Fire        bool
	Block       time.Duration
	Close       bool
	Code        wire.Code
	Labels      wire.Labels
	LabelsGiven bool
	// Pushback and PushbackMS are the error's server pushback (Config.RetryPushbackMS).
	Pushback   bool
	PushbackMS int64
}

// Point is an armed failCommand failpoint: a validated Config plus the state the server keeps
// (whether it is active, the times/skip counter and timesEntered). It is not safe for concurrent
// use; a run is single-threaded.
//
// A nil *Point is a failpoint that is off.
type Point struct {
	cfg Config

	// Compiled from cfg when the mode is not off.
	match        [wire.NumCommands]bool
	errorCode    int // data.errorCode as given: a status number of each command's service
	appName      string
	failInternal bool
	fired        Action // returned on a hit
	threshold    int32  // ModeActivationProbability: fire when a draw is below this

	kind    ModeKind
	active  bool
	left    int64 // the server's _modeValue for times and skip
	entered int64 // the server's _hitCount (timesEntered)
}

// New returns a failpoint configured by cfg, or cfg's validation errors.
func New(cfg Config) (*Point, error) {
	p := &Point{}
	if err := p.Configure(cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// Configure replaces p's mode and data with cfg, as a new configureFailPoint command does, and
// keeps its timesEntered count (the server's count survives reconfiguration). If cfg is invalid
// it returns the validation errors and leaves p unchanged.
func (p *Point) Configure(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg.FailCommands = slices.Clone(cfg.FailCommands)
	cfg.ErrorLabels = slices.Clone(cfg.ErrorLabels)
	*p = Point{cfg: cfg, kind: cfg.Mode.Kind, entered: p.entered}
	if cfg.Mode.Kind == ModeOff {
		return nil
	}
	p.active = true
	p.left = cfg.Mode.N
	p.threshold = probabilityThreshold(cfg.Mode.P)
	for _, name := range cfg.FailCommands {
		c, _ := lookupCommand(name) // Validate accepted every name
		p.match[c] = true
	}
	p.appName = cfg.AppName
	p.failInternal = cfg.FailInternalCommands

	a := Action{Fire: true, Close: cfg.CloseConnection}
	if cfg.BlockConnection {
		a.Block = time.Duration(cfg.BlockTimeMS) * time.Millisecond
	}
	if !cfg.CloseConnection {
		a.Code = wire.Code(cfg.ErrorCode)
	}
	p.errorCode = cfg.ErrorCode
	if cfg.HasErrorLabels || len(cfg.ErrorLabels) > 0 {
		a.LabelsGiven = true
		for _, name := range cfg.ErrorLabels {
			l, _ := wire.ParseLabel(name) // Validate accepted every label
			a.Labels |= l
		}
	}
	a.Pushback, a.PushbackMS = cfg.HasRetryPushback, cfg.RetryPushbackMS
	p.fired = a
	return nil
}

// Evaluate is the failpoint's check for one command on its way to execution: cmd arrived on a
// connection described by from. It returns what to do with the command.
//
// Only a command that passes the data predicate (listed in failCommands, from the configured
// appName if any, not from an internal client unless failInternalCommands) consults the mode, so
// only such commands consume a times or skip count or a random draw. In
// ModeActivationProbability, Evaluate draws exactly one number from r per matching command; r
// is not used in other modes and may then be nil.
//
// Evaluate does not allocate.
func (p *Point) Evaluate(cmd wire.Command, from Client, r *rand.Rand) Action {
	if p == nil || !p.active || int(cmd) >= wire.NumCommands || !p.match[cmd] {
		return Action{}
	}
	if p.appName != "" && from.AppName != p.appName {
		return Action{}
	}
	if from.Internal && !p.failInternal {
		return Action{}
	}
	if !p.hit(r) {
		return Action{}
	}
	p.entered++
	a := p.fired
	if svc := cmd.Service(); svc.Couchbase() && a.Code != wire.OK {
		// A Couchbase command's errorCode is a status of its service (Validate checked it).
		a.Code, _ = wire.CouchbaseStatus(svc, p.errorCode)
	}
	return a
}

// panicNilRand is the message of the panic when an activationProbability failpoint is evaluated
// without a random stream: a bug in the caller, not bad configuration.
const panicNilRand = "failpoint: Evaluate: activationProbability mode needs a *rand.Rand, got nil"

// hit is FailPoint::Impl::_evaluateByMode for a command the predicate accepted.
func (p *Point) hit(r *rand.Rand) bool {
	switch p.kind {
	case ModeAlwaysOn:
		return true
	case ModeActivationProbability:
		// rand.Int32 is uniform on [0, 2147483647], the range of the server's
		// std::uniform_int_distribution<int>{}.
		if r == nil {
			panic(panicNilRand)
		}
		return r.Int32() < p.threshold
	case ModeTimes:
		p.left--
		if p.left <= 0 {
			p.active = false
		}
		return true
	case ModeSkip:
		if p.left <= 0 {
			return true
		}
		p.left--
		return p.left < 0
	}
	return false
}

// Active reports whether the failpoint can still fire: false when off and after a times mode
// has fired its count.
func (p *Point) Active() bool { return p != nil && p.active }

// TimesFired returns how many commands the failpoint has fired on since New, across
// reconfigurations: the server's timesEntered. Commands a skip mode let through, and commands
// that did not match, are not counted.
func (p *Point) TimesFired() int64 {
	if p == nil {
		return 0
	}
	return p.entered
}

// Config returns the configuration p was last given.
func (p *Point) Config() Config {
	if p == nil {
		return Config{Mode: Off()}
	}
	c := p.cfg
	c.FailCommands = slices.Clone(c.FailCommands)
	c.ErrorLabels = slices.Clone(c.ErrorLabels)
	return c
}

// String describes p: its configuration followed by its state, for example
// {mode: {times: 3}, data: {failCommands: ["find"], errorCode: 2}} active=true left=2 timesEntered=1.
// left is printed only for times and skip modes.
func (p *Point) String() string {
	if p == nil {
		return Config{Mode: Off()}.String() + " active=false timesEntered=0"
	}
	s := p.cfg.String() + " active=" + strconv.FormatBool(p.active)
	if p.kind == ModeTimes || p.kind == ModeSkip {
		s += " left=" + strconv.FormatInt(max(p.left, 0), 10)
	}
	return s + " timesEntered=" + strconv.FormatInt(p.entered, 10)
}
