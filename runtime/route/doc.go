// Package route is the model router: a [Router] turns one user message
// into at most one macro call, through a cheap local model, in a
// [Conversation] that keeps a short history. Each [Conversation.Turn]
// offers the model the relevant macros (package catalog retrieves them
// above [RetrievalOptions.Threshold]), judges its answer with the bail-out
// detector ([BailOut], [DetectText], [DetectEscalation]) and the grounding
// check ([Ungrounded]), asks which to run first when the request asks for
// two different macros ([DetectIntents]), escalates to a fallback model or
// salvages a call written as text when that is safe, and hands the
// arguments it validated to [runtime.Dispatcher.DispatchValid]. A
// [TurnResult] says what the turn did and why ([Decision]).
//
// In explore mode ([ExploreOptions]) a turn is an agent loop over the
// macros and package explore's tools, sharing one page per conversation.
package route
