// Package tailfixprocessor is an OpenTelemetry Collector logs processor
// that diagnoses sglang server logs as they pass through, with tailfix's
// knowledge (packages patterns, matcher, diagnose and remedies).
//
// Records come out as they came in, none dropped or moved. Each record's
// body is a line (or several) of a log stream; streams are told apart by
// the attributes named in stream_keys, so that the interleaved records of
// many pods are diagnosed apart, each stream by a diagnose.Session of its
// own, fed a batch at a time (Source.Feed, then Source.Pause). The records
// of the lines of a finding at or above min_severity get the attributes
// tailfix.id, tailfix.severity and, for a symptom, tailfix.symptom_of.
// Each finding, when it is first made, gets a record of its own after the
// batch's records, under its stream's resource: the finding as tailfix's
// JSON contract (the --format json line) for body, tailfix.finding for
// event name, its severity as OpenTelemetry's. A finding shown while its
// event was open that the rest of the event made another finding is taken
// back by a record whose tailfix.update is "withdrawn"; a finding is not
// told again as its count grows.
//
// What a batch's lines are is said before the batch is handed on: an event
// complete at the end of a batch (a traceback with its exception line) is
// diagnosed as it stands, and the records of a traceback whose exception
// line comes in a later batch are annotated from that batch on. A stream
// idle for idle_timeout is dropped (at the next batch), the findings its
// open events make coming then; at most max_streams are kept, the one idle
// longest dropped first; at shutdown every stream ends the same way.
package tailfixprocessor
