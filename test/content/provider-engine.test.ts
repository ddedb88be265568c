import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { build, type TestTessera } from '../helper.js'
import { expectError } from '../support/standard-error.js'

type Mode = 'ok' | 'wrong-answers' | 'http-error' | 'not-json' | 'bad-schema'

/** A small server that speaks the OpenAI chat-completions protocol, as llama.cpp or vLLM do. */
function createChatServer() {
  let mode: Mode = 'ok'
  const requests: Array<{
    path: string
    authorization?: string
    body: { model: string; response_format?: unknown; messages: Array<{ role: string; content: string }> }
  }> = []
  const read = async (req: IncomingMessage) => {
    let data = ''
    for await (const chunk of req) data += chunk
    return JSON.parse(data)
  }
  const answer = (user: string): unknown => {
    if (/problems/.test(user) && /Write (\d+)/.test(user)) {
      const count = Number(/Write (\d+)/.exec(user)![1])
      return {
        problems: Array.from({ length: count }, (_, i) => ({
          question: `A photosynthesis lab grows ${i + 2} trays of 12 seedlings. How many seedlings are there?`,
          hints: ['Multiply the trays by the seedlings per tray.'],
          answer: mode === 'wrong-answers' ? String((i + 2) * 12 + 1) : String((i + 2) * 12),
          steps: [`${i + 2} × 12 = ${(i + 2) * 12}`],
          expression: `${i + 2} * 12`,
          choices: [String((i + 2) * 12), '10', '11', '13'],
          tags: ['multiplication'],
        })),
      }
    }
    if (/lesson/.test(user)) {
      return {
        title: 'How plants make food',
        objectives: ['Explain how plants use light to make sugar.', 'Understand photosynthesis.'],
        sections: [
          { type: 'introduction', title: 'Engage', content: 'Show a plant kept in the dark next to one kept in the light. Ask what changed.', duration: 5 },
          {
            type: 'explanation',
            title: 'Explain',
            content: 'Plants take in water and carbon dioxide. Light gives the energy to make sugar and oxygen.',
            duration: 20,
          },
          { type: 'evaluation', title: 'Evaluate', content: 'Students draw the inputs and outputs of a leaf.', duration: 5 },
        ],
      }
    }
    return { title: 'Quiz', questions: [{ type: 'short-answer', prompt: 'What gas do plants release?', answer: 'Oxygen' }] }
  }
  const server: Server = createServer(async (req, res) => {
    const body = await read(req)
    requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body })
    if (mode === 'http-error') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model not loaded"}')
      return
    }
    const user = body.messages.find((m: { role: string }) => m.role === 'user')?.content ?? ''
    const content =
      mode === 'not-json' ? 'Sure! Here are some problems.' : JSON.stringify(mode === 'bad-schema' ? { problems: [{ question: 'No answer' }] } : answer(user))
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    )
  })
  return {
    requests,
    setMode: (m: Mode) => {
      mode = m
    },
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('the OpenAI-compatible provider engine', () => {
  const chat = createChatServer()
  let withFallback: TestTessera
  let strict: TestTessera
  beforeAll(async () => {
    const url = await chat.listen()
    withFallback = await build({
      services: ['content'],
      env: { CONTENT_PROVIDER_URL: url, CONTENT_PROVIDER_MODEL: 'llama-test', CONTENT_PROVIDER_API_KEY: 'sk-local-test', CONTENT_PROVIDER_TIMEOUT_MS: '2000' },
    })
    strict = await build({ services: ['content'], env: { CONTENT_PROVIDER_URL: url, CONTENT_PROVIDER_FALLBACK: 'none', CONTENT_PROVIDER_TIMEOUT_MS: '2000' } })
  })
  afterAll(async () => {
    await withFallback?.close()
    await strict?.close()
    await chat.close()
  })

  const post = (t: TestTessera, path: string, payload: object) => t.app.inject({ method: 'POST', url: `/v1/content-ai${path}`, headers: t.auth, payload })

  it('asks for JSON and returns problems whose answers the expressions confirm', async () => {
    chat.setMode('ok')
    const res = await post(withFallback, '/generate/problems', { topic: 'seedlings in a photosynthesis lab', count: 3, format: 'multiple-choice' })
    expect(res.statusCode, res.body).toBe(201)
    const set = res.json()
    expect(set.metadata.engine).toBe('provider')
    expect(set.problems).toHaveLength(3)
    expect(set.problems[0]).toMatchObject({ solution: { answer: '24' }, verification: { verified: true, method: 'mathjs evaluation of 2 * 12' } })
    expect(set.problems[0].choices).toContain('24')
    const sent = chat.requests.at(-1)!
    expect(sent.path).toBe('/v1/chat/completions')
    expect(sent.authorization).toBe('Bearer sk-local-test')
    expect(sent.body.model).toBe('llama-test')
    expect(sent.body.response_format).toEqual({ type: 'json_object' })
    const stored = (await withFallback.app.inject({ method: 'GET', url: `/v1/content-ai/content/${set.id}`, headers: withFallback.auth })).json()
    expect(stored.engine).toBe('provider')
  })

  it('writes lessons on topics beyond the offline families, minutes fitted to the duration and only measurable objectives kept', async () => {
    chat.setMode('ok')
    const lesson = (await post(withFallback, '/generate/lesson', { subject: 'Science', topic: 'photosynthesis', gradeLevel: '5', duration: 45 })).json()
    expect(lesson.metadata.engine).toBe('provider')
    expect(lesson.sections.reduce((s: number, x: { duration: number }) => s + x.duration, 0)).toBe(45)
    expect(lesson.sections.map((s: { duration: number }) => s.duration)).toEqual([8, 30, 7])
    expect(lesson.objectives).toEqual(['Explain how plants use light to make sugar.'])
    expect(lesson.metadata.readingLevel).toBeGreaterThan(0)
  })

  it('falls back to the offline engine when the answers fail verification, the output is not JSON or the server errs', async () => {
    for (const mode of ['wrong-answers', 'not-json', 'bad-schema', 'http-error'] as const) {
      chat.setMode(mode)
      const res = await post(withFallback, '/generate/problems', { topic: 'fractions', count: 2, seed: 1 })
      expect(res.statusCode, `${mode}: ${res.body}`).toBe(201)
      const set = res.json()
      expect(set.metadata.engine).toBe('offline')
      expect(set.metadata.fallbackReason).toMatch(mode === 'wrong-answers' ? /failed verification/ : mode === 'http-error' ? /HTTP 500/ : /JSON/)
    }
  })

  it('answers 503 when the provider fails and the offline engine cannot stand in', async () => {
    chat.setMode('http-error')
    const res = await post(withFallback, '/generate/lesson', { subject: 'Science', topic: 'photosynthesis', gradeLevel: '5' })
    expectError(res, 503, 'SERVICE_UNAVAILABLE')
    const strictRes = await post(strict, '/generate/problems', { topic: 'fractions' })
    const error = expectError(strictRes, 503, 'SERVICE_UNAVAILABLE')
    expect(error.message).toMatch(/HTTP 500/)
    const graph = (
      await strict.app.inject({
        method: 'POST',
        url: '/graphql',
        headers: strict.auth,
        payload: { query: 'mutation { generateProblems(input: { topic: "fractions" }) { id } }' },
      })
    ).json()
    expect(graph.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE')
  })
})
