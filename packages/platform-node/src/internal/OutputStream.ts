/**
 * A child's output pipe as a `Stream`, read in flowing mode: every `data` chunk Node hands over is queued and
 * taken by the next pull, all queued chunks at once. There is no `PassThrough` between the pipe and the stream and
 * no `readable`/`read()` loop: one array push per chunk, one callback per wake-up of the consumer.
 *
 * Backpressure: past `highWaterMark` queued bytes the pipe is paused, and resumed by the pull that empties the
 * queue, so a consumer that stops pulling stops the reads (and, once the OS pipe is full, the child's writes).
 *
 * @internal
 */
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Channel from "effect/Channel"
import * as Effect from "effect/Effect"
import type * as Pull from "effect/Pull"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { finished, type Readable } from "node:stream"

/** Queued bytes past which the pipe is paused until the consumer pulls. */
export const DEFAULT_HIGH_WATER_MARK = 1024 * 1024

type Chunks = Arr.NonEmptyReadonlyArray<Uint8Array>

/**
 * Reads `readable` (a child's stdout or stderr) as a stream of chunks. The readable is destroyed when the stream
 * ends or its consumer stops. Each run of the stream adds its own listener: read each output through one consumer.
 */
export const fromOutput = <E>(
  readable: Readable,
  onError: (error: unknown) => E,
  highWaterMark: number = DEFAULT_HIGH_WATER_MARK
): Stream.Stream<Uint8Array, E> =>
  Stream.fromChannel(Channel.fromTransform((_upstream, scope) => {
    let queued: Array<Uint8Array> = []
    let bytes = 0
    let paused = false
    let end: Pull.Pull<never, E> | undefined
    let waiting: ((pull: Pull.Pull<Chunks, E>) => void) | undefined

    /** Everything queued, or `undefined` when nothing is. */
    const takeQueued = (): Pull.Pull<Chunks, E> | undefined => {
      const chunks = queued
      if (!Arr.isArrayNonEmpty(chunks)) return undefined
      queued = []
      bytes = 0
      if (paused) {
        paused = false
        readable.resume()
      }
      return Effect.succeed(chunks)
    }

    const onData = (chunk: Uint8Array) => {
      queued.push(chunk)
      bytes += chunk.length
      if (bytes >= highWaterMark && !paused) {
        paused = true
        readable.pause()
      }
      const resume = waiting
      if (resume !== undefined) {
        waiting = undefined
        resume(takeQueued() ?? Cause.done())
      }
    }

    const stopListening = finished(readable, { readable: true, writable: false }, (error) => {
      end ??= error === undefined || error === null ? Cause.done() : Effect.fail(onError(error))
      const resume = waiting
      if (resume !== undefined && queued.length === 0) {
        waiting = undefined
        resume(end)
      }
    })
    readable.on("data", onData)

    const pull: Pull.Pull<Chunks, E> = Effect.callback<Chunks, E | Cause.Done>((resume) => {
      const chunks = takeQueued()
      if (chunks !== undefined) return resume(chunks)
      if (end !== undefined) return resume(end)
      waiting = resume
      return Effect.sync(() => {
        if (waiting === resume) waiting = undefined
      })
    })

    return Effect.as(
      Scope.addFinalizer(
        scope,
        Effect.sync(() => {
          readable.off("data", onData)
          stopListening()
          // Keep a late error (after the consumer stopped) from becoming an uncaught exception.
          readable.on("error", ignore)
          readable.destroy()
        })
      ),
      pull
    )
  }))

const ignore = () => {}
