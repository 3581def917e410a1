import AuthCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

extension ControlAPI {
    /// `/events`: the audit trail, and a Server-Sent Events stream of everything as it happens.
    func addEventRoutes<Context: RequestContext>(to group: RouterGroup<Context>) {
        group.get { request, _ in
            let control = ControlRequest(request: request)
            let events = try emulator.events(type: control.query("type"), filter: try control.listFilter())
            return ControlJSON.response(["events": .array(events.map(ControlJSON.event))])
        }
        group.get("stream") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            headers[.cacheControl] = "no-store"
            let (frames, end) = sseFrames()
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                // A graceful shutdown waits for every response in progress to finish, and this one only
                // finishes when the client leaves: so SIGTERM ends it (the client sees the stream close).
                try await withGracefulShutdownHandler {
                    for await frame in frames {
                        try await writer.write(ByteBuffer(string: frame))
                    }
                } onGracefulShutdown: {
                    end.finish()
                }
                try await writer.finish(nil)
            })
        }
    }

    /// Feed items as SSE frames, with a comment line every 15 s so proxies and browsers keep the
    /// connection, and so a gone client is noticed (the write fails) even when nothing happens.
    /// Finishing the continuation ends the stream.
    private func sseFrames() -> (AsyncStream<String>, AsyncStream<String>.Continuation) {
        let feed = emulator.feed.subscribe()
        let (frames, continuation) = AsyncStream<String>.makeStream()
        continuation.yield(": connected\n\n")
        let forward = Task {
            for await item in feed { continuation.yield(ControlJSON.sseFrame(item)) }
            continuation.finish()
        }
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                continuation.yield(": keep-alive\n\n")
            }
        }
        continuation.onTermination = { _ in
            forward.cancel()
            heartbeat.cancel()
        }
        return (frames, continuation)
    }
}
