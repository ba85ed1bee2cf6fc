// Package failpoint models MongoDB's failCommand failpoint: the fault that the drivers' spec
// tests inject with
//
//	{configureFailPoint: "failCommand", mode: {times: 2},
//	 data: {failCommands: ["find"], errorCode: 462,
//	        errorLabels: ["RetryableError", "SystemOverloadedError"]}}
//
// A [Config] is that command as data; [New] validates it and returns a [Point]. A node calls
// [Point.Evaluate] once for every command that reaches the check and carries out the [Action]
// it returns: delay the command, close the connection, fail it with a code, replace its error
// labels, or let it through.
//
// # Semantics
//
// The behaviour follows the server source (mongodb/mongo):
//
//   - Matching before counting. The server evaluates failCommand through FailPoint::executeIf
//     with a predicate (src/mongo/util/fail_point.h, FailPoint::Impl::_tryLock: "The
//     caller-supplied predicate, if provided, can force a miss that bypasses the
//     `_evaluateByMode()` call"). The predicate is
//     CommandHelpers::shouldActivateFailCommandFailPoint plus "closeConnection ||
//     blockConnection || hasErrorCode" (src/mongo/db/commands.cpp,
//     CommandHelpers::evaluateFailCommandFailPoint). So a command that is not in failCommands,
//     comes from another appName, or comes from an internal client consumes no times or skip
//     count and no random draw.
//   - Predicate. The command's name or an alias must be in failCommands (Command::hasAlias;
//     hello and isMaster are separate commands on the server, one command in this model);
//     appName, when given, must equal the client's appName exactly; internal clients
//     (isInternalClient: intra-cluster connections) are exempt unless failInternalCommands is
//     true. configureFailPoint itself is never failed. Nothing exempts hello or unauthenticated
//     connections: the SDAM spec tests fail monitoring hellos this way.
//   - Modes (src/mongo/util/fail_point.cpp, FailPoint::Impl::_evaluateByMode and
//     FailPoint::parseBSON). alwaysOn fires. {times: N} decrements its counter, turns the
//     failpoint off when the counter reaches 0 or below, and fires; so {times: 0} fires once.
//     {skip: N} lets N matching commands through, then fires on every later one.
//     {activationProbability: p} fires when a uniform integer on [0, 2³¹−1] is below
//     int32((2³¹−1)·p). times and skip must lie in [0, 2³¹−1]; p in [0, 1].
//   - timesEntered (FailPoint::Impl::_hitCount) counts hits only, survives reconfiguration, and
//     is what [Point.TimesFired] returns.
//   - Effects, in order (CommandHelpers::evaluateFailCommandFailPoint): errorLabels, when given
//     as an array, override the labels of any error the operation returns, and an empty array
//     removes them (src/mongo/db/error_labels.cpp, getErrorLabels and errorLabelsOverride);
//     blockConnection sleeps blockTimeMS; closeConnection then ends the session, so errorCode
//     has no effect; otherwise errorCode fails the command; with neither, the command runs
//     normally after the block.
//   - Where it runs: after the command is parsed and before it executes, on mongod
//     (src/mongo/db/service_entry_point_common.cpp) and mongos (src/mongo/s/commands/strategy.cpp).
//
// # Differences from the server
//
// [Config.Validate] rejects configurations the server accepts but that cannot do what was
// meant: names, codes and labels the model does not know; blockConnection without a positive
// blockTimeMS (the server fails each matching command with InvalidOptions instead) and
// blockTimeMS without blockConnection (ignored); data with none of errorCode, closeConnection
// and blockConnection (never fires). writeConcernError, threadName, namespace,
// failLocalClients, failAllCommands and errorExtraInfo are not modelled.
//
// Randomness comes only from the *rand.Rand passed to Evaluate; nothing reads the clock.
package failpoint
