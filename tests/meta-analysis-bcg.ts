/**
 * metafor's BCG vaccine trials (`dat.bcg`, 13 studies) as `escalc(measure = "RR", ai = tpos,
 * bi = tneg, ci = cpos, di = cneg, data = dat.bcg)` gives them: log risk ratios `yi` and their
 * sampling variances `vi`, with the moderators absolute latitude `ablat` (degrees) and publication
 * `year`. The data set of metafor's documented examples, shared by the engine's tests.
 */
export const yi = [
  -0.889311333920205, -1.58538865720143, -1.34807314829969, -1.44155119002131, -0.217547322211296, -0.786115585818864,
  -1.62089822359839, 0.0119523335238405, -0.469417648738149, -1.37134480347278, -0.339358828338391, 0.445913400571379,
  -0.0173139482168798,
];
export const vi = [
  0.325584765003961, 0.194581121398144, 0.415367965367965, 0.0200100319022476, 0.0512101721696309, 0.00690561845590876,
  0.223017247572315, 0.00396157929781773, 0.056434210463249, 0.0730247936130289, 0.0124122139715597, 0.532505845200153,
  0.0714046596839863,
];
export const ablat = [44, 55, 42, 52, 13, 44, 19, 13, 27, 42, 18, 33, 33];
export const year = [1948, 1949, 1960, 1977, 1973, 1953, 1973, 1980, 1968, 1961, 1974, 1969, 1976];
