/**
 * Common Core State Standards for Mathematics, grades 3–8 and the high-school algebra
 * standards Tessera's generators practise, by code, each with a short summary in Tessera's
 * words (used to match objectives to the standards they claim).
 */
export const MATH_STANDARDS: Readonly<Record<string, string>> = {
  '2.NBT.B.5': 'Fluently add and subtract within 100 using place value and properties of operations.',
  '3.OA.A.1': 'Interpret products of whole numbers as equal groups of objects.',
  '3.OA.A.2': 'Interpret whole-number quotients as sharing objects into equal groups.',
  '3.OA.A.3': 'Use multiplication and division within 100 to solve word problems with equal groups and arrays.',
  '3.OA.B.5': 'Apply properties of operations as strategies to multiply and divide.',
  '3.OA.C.7': 'Fluently multiply and divide within 100; know from memory all products of two one-digit numbers.',
  '3.OA.D.8': 'Solve two-step word problems using the four operations and assess answers with estimation.',
  '3.NBT.A.2': 'Fluently add and subtract within 1000 using place value strategies.',
  '3.NF.A.1': 'Understand a fraction 1/b as one part when a whole is partitioned into b equal parts.',
  '3.NF.A.3': 'Explain equivalence of fractions and compare fractions by reasoning about their size.',
  '3.MD.A.2': 'Measure and estimate liquid volumes and masses of objects in grams, kilograms and liters.',
  '3.MD.C.7': 'Relate area to multiplication and addition; find the area of rectangles by multiplying side lengths.',
  '3.MD.D.8': 'Solve problems involving perimeters of polygons, including finding an unknown side length.',
  '4.OA.A.3': 'Solve multistep word problems with whole numbers using the four operations, including remainders.',
  '4.NBT.B.4': 'Fluently add and subtract multi-digit whole numbers using the standard algorithm.',
  '4.NBT.B.5': 'Multiply a whole number of up to four digits by a one-digit whole number and two two-digit numbers.',
  '4.NBT.B.6': 'Find whole-number quotients and remainders with up to four-digit dividends and one-digit divisors.',
  '4.NF.A.1': 'Explain why fractions are equivalent using visual fraction models.',
  '4.NF.A.2': 'Compare two fractions with different numerators and denominators.',
  '4.NF.B.3': 'Add and subtract fractions and mixed numbers with like denominators.',
  '4.NF.B.4': 'Multiply a fraction by a whole number.',
  '4.NF.C.6': 'Use decimal notation for fractions with denominators 10 or 100.',
  '4.MD.A.1': 'Know relative sizes of measurement units and convert from a larger unit to a smaller unit.',
  '4.MD.A.2': 'Solve word problems involving distances, time, volumes, masses and money using the four operations.',
  '4.MD.A.3': 'Apply the area and perimeter formulas for rectangles in real world problems.',
  '5.OA.A.1': 'Use parentheses, brackets or braces in numerical expressions and evaluate them.',
  '5.NBT.A.3': 'Read, write and compare decimals to thousandths.',
  '5.NBT.B.5': 'Fluently multiply multi-digit whole numbers using the standard algorithm.',
  '5.NBT.B.6': 'Find whole-number quotients of whole numbers with up to four-digit dividends and two-digit divisors.',
  '5.NBT.B.7': 'Add, subtract, multiply and divide decimals to hundredths.',
  '5.NF.A.1': 'Add and subtract fractions with unlike denominators by replacing them with equivalent fractions.',
  '5.NF.A.2': 'Solve word problems involving addition and subtraction of fractions.',
  '5.NF.B.4': 'Multiply a fraction or whole number by a fraction.',
  '5.NF.B.6': 'Solve real world problems involving multiplication of fractions and mixed numbers.',
  '5.NF.B.7': 'Divide unit fractions by whole numbers and whole numbers by unit fractions.',
  '5.MD.A.1': 'Convert among different-sized standard measurement units within a given measurement system.',
  '5.MD.C.5': 'Find the volume of a right rectangular prism and solve volume problems.',
  '6.RP.A.1': 'Understand the concept of a ratio and use ratio language to describe a relationship between two quantities.',
  '6.RP.A.2': 'Understand the concept of a unit rate associated with a ratio.',
  '6.RP.A.3': 'Use ratio and rate reasoning to solve real world problems with tables, tape diagrams and double number lines.',
  '6.RP.A.3b': 'Solve unit rate problems including unit pricing and constant speed.',
  '6.RP.A.3c': 'Find a percent of a quantity as a rate per 100; find the whole given a part and the percent.',
  '6.RP.A.3d': 'Use ratio reasoning to convert measurement units.',
  '6.NS.A.1': 'Interpret and compute quotients of fractions and solve word problems involving division of fractions.',
  '6.NS.B.2': 'Fluently divide multi-digit numbers using the standard algorithm.',
  '6.NS.B.3': 'Fluently add, subtract, multiply and divide multi-digit decimals using the standard algorithm.',
  '6.NS.C.5': 'Understand positive and negative numbers to describe quantities with opposite directions or values.',
  '6.EE.A.1': 'Write and evaluate numerical expressions involving whole-number exponents.',
  '6.EE.A.2': 'Write, read and evaluate expressions in which letters stand for numbers.',
  '6.EE.A.2c': 'Evaluate expressions at specific values of their variables, using the order of operations.',
  '6.EE.B.5': 'Understand solving an equation as finding which values make it true.',
  '6.EE.B.7': 'Solve real world problems by writing and solving equations of the form x + p = q and px = q.',
  '6.G.A.1': 'Find the area of right triangles, other triangles, special quadrilaterals and polygons by composing and decomposing.',
  '6.SP.B.5': 'Summarize numerical data sets in relation to their context.',
  '7.RP.A.1': 'Compute unit rates associated with ratios of fractions.',
  '7.RP.A.2': 'Recognize and represent proportional relationships between quantities.',
  '7.RP.A.3': 'Use proportional relationships to solve multistep ratio and percent problems, such as discounts, tax and percent increase and decrease.',
  '7.NS.A.1': 'Add and subtract rational numbers; represent addition and subtraction on a number line.',
  '7.NS.A.2': 'Multiply and divide rational numbers.',
  '7.NS.A.3': 'Solve real world problems involving the four operations with rational numbers.',
  '7.EE.A.1': 'Add, subtract, factor and expand linear expressions with rational coefficients.',
  '7.EE.B.3': 'Solve multi-step real-life problems with positive and negative rational numbers in any form.',
  '7.EE.B.4': 'Use variables to represent quantities and construct simple equations and inequalities to solve problems.',
  '7.EE.B.4a': 'Solve word problems leading to equations of the form px + q = r and p(x + q) = r.',
  '7.G.B.4': 'Know the formulas for the area and circumference of a circle and use them to solve problems.',
  '7.G.B.6': 'Solve problems involving area, volume and surface area of two- and three-dimensional objects.',
  '7.SP.C.5': 'Understand that the probability of a chance event is a number between 0 and 1 expressing its likelihood.',
  '7.SP.C.6': 'Approximate the probability of a chance event by collecting data and observing its relative frequency.',
  '7.SP.C.7': 'Develop a probability model and use it to find probabilities of events.',
  '7.SP.C.8': 'Find probabilities of compound events using organized lists, tables, tree diagrams and simulation.',
  '8.EE.A.1': 'Know and apply the properties of integer exponents to generate equivalent numerical expressions.',
  '8.EE.B.5': 'Graph proportional relationships, interpreting the unit rate as the slope of the graph.',
  '8.EE.C.7': 'Solve linear equations in one variable, including equations with variables on both sides and brackets.',
  '8.EE.C.8': 'Analyze and solve pairs of simultaneous linear equations.',
  '8.EE.C.8b': 'Solve systems of two linear equations in two variables algebraically and estimate solutions by graphing.',
  '8.F.A.1': 'Understand that a function is a rule that assigns to each input exactly one output.',
  '8.G.B.7': 'Apply the Pythagorean Theorem to determine unknown side lengths in right triangles.',
  '8.G.C.9': 'Know the formulas for the volumes of cones, cylinders and spheres and use them to solve problems.',
  'HSA.REI.B.3': 'Solve linear equations and inequalities in one variable, including equations with coefficients represented by letters.',
  'HSA.REI.C.6': 'Solve systems of linear equations exactly and approximately, focusing on pairs of linear equations in two variables.',
  'HSA.CED.A.1': 'Create equations and inequalities in one variable and use them to solve problems.',
  'HSS.CP.A.1': 'Describe events as subsets of a sample space using characteristics of the outcomes.',
}

/** Words that carry no meaning for matching an objective to a standard. */
const STOP = new Set(
  'a an and are as at be by for from in into is it of on or such that the their them these this to use using with within students will able problems problem real world'.split(
    ' ',
  ),
)

/** Content words of a text, crudely stemmed (plural and -ing/-ed endings removed). */
export function contentWords(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => w.length > 2 && !STOP.has(w)).map((w) => w.replace(/(ing|ed|es|s)$/, '')))
}

/** Share of an objective's content words that a standard's summary also has (0–1). */
export function overlap(objective: string, standard: string): number {
  const a = contentWords(objective)
  const b = contentWords(standard)
  if (!a.size) return 0
  let shared = 0
  for (const w of a) if (b.has(w)) shared++
  return shared / a.size
}
