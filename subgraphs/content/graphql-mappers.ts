import type { Principal } from '../../platform/auth/scopes.js'
import type { ContentEventRecord, ContentRecord } from './content-service.js'
import type { Assessment } from './engine/assessment-generator.js'
import type { Lesson } from './engine/lesson-generator.js'
import type { ProblemSet } from './engine/problem-generator.js'
import type { ValidationReport } from './validation/content-validator.js'
import type { VideoRecord } from './video/video-service.js'

/** Per-request context of the content subgraph. */
export interface Context {
  actor: Principal | null
  requestId?: string
}

export type ContentItemModel = ContentRecord
export type LessonModel = Lesson
export type ProblemSetModel = ProblemSet
export type AssessmentModel = Assessment
export type ValidationReportModel = ValidationReport
export type ContentEventModel = ContentEventRecord
export type VideoModel = VideoRecord
