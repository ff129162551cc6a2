/** The operations routes' shapes (OpenAPI `Health`). */
import { Type as t } from '@sinclair/typebox'

export const Health = t.Object({ status: t.Literal('ok') }, { additionalProperties: false, title: 'Health' })
