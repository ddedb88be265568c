// `npm run bench:content`: how long the content generators take, in this process, without the
// HTTP edge or the database (what a request adds on top is a JSON parse and one insert).
//   problems        POST /generate/problems, 10 problems (difficulty 3), and 1,000 in one call
//   lesson          POST /generate/lesson, 45 minutes, with an embedded assessment and differentiation
//   assessment      POST /generate/assessment, 10 items of all three types, with a rubric
//   validate        POST /validate, all five checks on a generated lesson (Harper loaded once first)
//   video           POST /generate/video's job: seconds of rendering per minute of video
// BENCH_RUNS (default 30) sets the runs per generator. Figures are printed, not judged.
import { performance } from 'node:perf_hooks'
import { createOfflineEngine } from '../../subgraphs/content/engine/offline-engine.js'
import { validateContent } from '../../subgraphs/content/validation/content-validator.js'
import { renderVideo } from '../../subgraphs/content/video/video-renderer.js'
import { positiveInt } from './bench-support.js'

const RUNS = positiveInt('BENCH_RUNS', 30)
const engine = createOfflineEngine()

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

async function time(label: string, runs: number, fn: (i: number) => Promise<unknown>) {
  const ms: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await fn(i)
    ms.push(performance.now() - start)
  }
  ms.sort((a, b) => a - b)
  console.log(`${label.padEnd(28)} p50 ${percentile(ms, 50).toFixed(1).padStart(8)} ms   p95 ${percentile(ms, 95).toFixed(1).padStart(8)} ms   (${runs} runs)`)
}

const topics = [
  'fractions',
  'percentages',
  'linear equations',
  'probability',
  'unit conversion',
  'ratios',
  'area and perimeter',
  'decimals',
  'systems of equations',
  'whole numbers',
]

await time('problems ×10', RUNS, (i) =>
  engine.problems({
    topic: topics[i % topics.length]!,
    difficulty: 3,
    count: 10,
    includeHints: true,
    includeSolutions: true,
    format: 'multiple-choice',
    seed: i,
  }),
)
await time('problems ×1000', Math.max(3, Math.floor(RUNS / 10)), (i) =>
  engine.problems({
    topic: topics[i % topics.length]!,
    difficulty: 3,
    count: 1000,
    includeHints: true,
    includeSolutions: true,
    format: 'short-answer',
    seed: i,
  }),
)
await time('lesson (45 min)', RUNS, (i) =>
  engine.lesson({
    subject: 'Mathematics',
    topic: topics[i % topics.length]!,
    gradeLevel: '6',
    objectives: [],
    duration: 45,
    includeAssessment: true,
    differentiation: true,
    standards: [],
    seed: i,
  }),
)
await time('assessment ×10 + rubric', RUNS, (i) =>
  engine.assessment({
    topic: topics[i % topics.length]!,
    questionTypes: ['multiple-choice', 'short-answer', 'essay'],
    questionCount: 10,
    difficulty: 3,
    standards: [],
    includeRubric: true,
    seed: i,
  }),
)
const lesson = await engine.lesson({
  subject: 'Mathematics',
  topic: 'ratios',
  gradeLevel: '6',
  objectives: [],
  duration: 45,
  includeAssessment: true,
  differentiation: true,
  standards: [],
  seed: 1,
})
const warm = performance.now()
await validateContent({ content: lesson })
console.log(`${'validate: first call'.padEnd(28)} ${(performance.now() - warm).toFixed(0).padStart(8)} ms   (loads Harper's WebAssembly)`)
await time('validate (5 checks, lesson)', Math.max(5, Math.floor(RUNS / 3)), () => validateContent({ content: lesson }))

// About a minute of narration: the explanation section of a generated lesson, trimmed.
const script = lesson.sections
  .map((s) => s.content.replace(/\(Key[^)]*\)/g, '').replace(/\n+/g, ' '))
  .join(' ')
  .split(/(?<=[.!?])\s+/)
  .slice(0, 14)
  .join(' ')
const start = performance.now()
const video = await renderVideo({
  topic: 'Ratios',
  script,
  style: 'animated',
  voice: { language: 'en', gender: 'female', wordsPerMinute: 175 },
  captions: true,
})
const seconds = (performance.now() - start) / 1000
console.log(
  `${'video render'.padEnd(28)} ${seconds.toFixed(1)} s for ${video.probe.duration.toFixed(1)} s of video (${video.slides} slides, ${(video.probe.size / 1024).toFixed(0)} KiB): ${((seconds / video.probe.duration) * 60).toFixed(1)} s per minute of video`,
)
